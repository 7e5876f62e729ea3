/**
 * End-to-end encrypted meetings, the controller's part (docs/e2ee.md): it relays participants' public identity keys
 * and their key envelopes (media keys wrapped to one recipient each) and checks who may send what to whom. It never
 * sees a media key: it has nothing to decrypt an envelope with, stores nothing in PostgreSQL and logs no key bytes.
 */
package dev.parley.controller.e2ee;
