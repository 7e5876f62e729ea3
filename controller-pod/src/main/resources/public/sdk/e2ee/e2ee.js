// What ParleyClient needs for an end-to-end encrypted meeting, in one place (docs/e2ee.md): the worker that
// encrypts and decrypts frames, the key session, and `state.e2ee` for the UI. parley-client.js only calls the
// hooks below; media.js only asks for the peer-connection settings and attaches transforms before negotiating.

import { E2eeSession } from './session.js';
import { WorkerCryptor, transformPath } from './transforms.js';

export { transformPath };

/**
 * @typedef {Object} E2eeHost
 * @property {(msg:Object) => boolean} send
 * @property {() => string} selfId
 * @property {() => number} epoch
 * @property {(status:Object) => void} publish   puts the status into the client's state (`state.e2ee`)
 */

export class E2ee {
  /** @param {string} meetingId @param {E2eeHost} host @param {{withholdKeys?:boolean}} [testHooks] */
  constructor(meetingId, host, testHooks = {}) {
    this.host = host;
    this.cryptor = new WorkerCryptor();
    this.session = new E2eeSession({
      meetingId, selfId: host.selfId(), send: host.send, cryptor: this.cryptor, epoch: host.epoch,
      onChange: () => this.#publish(),
    });
    this.session.withholdKeys = !!testHooks.withholdKeys;
    this.started = false;
    this.lastPublished = '';
  }

  /** The signaling socket is open (joined or resumed): announce our identity (again). */
  socketOpen() {
    if (!this.started) {
      this.started = true;
      this.session.start().catch((e) => console.warn(`parley e2ee: could not start: ${e?.message || e}`));
    } else {
      this.session.reannounce();
    }
  }

  /** A signaling message or an event: true when it was a key message. @param {any} m */
  handle(m) { return this.session.handle(m); }

  /** The admitted participants changed (control events). @param {string[]} ids */
  setRoster(ids) { this.session.setRoster(ids); }

  /** What MediaSession calls: settings for new peer connections and the transforms before each negotiation. */
  mediaHooks() {
    return { pcConfig: () => this.cryptor.pcConfig(), attach: (/** @type {RTCPeerConnection} */ pc) => this.cryptor.attach(pc) };
  }

  #publish() {
    const st = this.session.status();
    // Only the status goes into the state (a change re-renders); the frame counts stay on `cryptor.latest`.
    const out = { ...st, path: this.cryptor.path };
    const text = JSON.stringify(out);
    if (text !== this.lastPublished) { this.lastPublished = text; this.host.publish(out); }
  }

  close() {
    this.session.close();
    this.cryptor.close();
  }
}
