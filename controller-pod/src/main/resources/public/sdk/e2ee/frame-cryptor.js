// The frame encryption of one device (docs/e2ee.md): a key ring of SFrame keys by KID, the counter of each of
// our own keys, and the counts of what was dropped. It works on plain byte arrays so the in-page tests and the
// encoded-transform worker (worker.js) use the same code.

import { encodeHeader, decodeHeader, clearBytes, nonce, hkdfInfo, TAG_BYTES } from './sframe.js';

/** How long a receiver keeps a sender's previous key after a newer one arrived (frames in flight). */
export const OVERLAP_MS = 2000;

/**
 * @typedef {Object} RingKey
 * @property {CryptoKey} key     AES-128-GCM, not extractable
 * @property {Uint8Array} salt
 * @property {string} owner      participant id of the sender
 * @property {number} generation the sender's key generation
 * @property {number} retireAt   0 = current; else the time (ms) after which frames under it are dropped
 */

/** Derives the SFrame key and salt of `kid` from a base key (RFC 9605 §4.4.2). */
export async function deriveKey(baseKey, kid) {
  const subtle = globalThis.crypto.subtle;
  const ikm = await subtle.importKey('raw', /** @type {BufferSource} */ (baseKey), 'HKDF', false, ['deriveBits']);
  const params = (label) => ({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: hkdfInfo(label, kid) });
  const keyBits = await subtle.deriveBits(params('key'), ikm, 128);
  const saltBits = await subtle.deriveBits(params('salt'), ikm, 96);
  const key = await subtle.importKey('raw', keyBits, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
  return { key, salt: new Uint8Array(saltBits) };
}

export class FrameCryptor {
  /** @param {{now?:() => number, overlapMs?:number}} [o] */
  constructor(o = {}) {
    this.now = o.now || (() => performance.now());
    this.overlapMs = o.overlapMs ?? OVERLAP_MS;
    /** @type {Map<number, RingKey>} */ this.ring = new Map();
    /** KID of our current sending key (null: nothing is sent until we have one). */
    /** @type {number|null} */ this.sendKid = null;
    /** KID -> next counter: never reset for a KID, so a (key, counter) pair is never used twice. */
    /** @type {Map<number, number>} */ this.counters = new Map();
    this.stats = { encrypted: 0, decrypted: 0, tagFailures: 0, noKey: 0, malformed: 0, unencryptedDropped: 0, sendWithoutKey: 0 };
    /** participant id -> frames decrypted (whose media we can read) */
    /** @type {Object<string, number>} */ this.decryptedBy = {};
    /** participant id -> KID of the last frame that decrypted */
    /** @type {Object<string, number>} */ this.lastKidBy = {};
  }

  /**
   * Adds a key of `owner` (a sender) to the ring; that owner's older keys are retired after the overlap.
   * @param {number} kid @param {Uint8Array} baseKey @param {string} owner @param {number} generation
   */
  async setKey(kid, baseKey, owner, generation) {
    const { key, salt } = await deriveKey(baseKey, kid);
    const retireAt = this.now() + this.overlapMs;
    for (const [k, v] of this.ring) {
      if (v.owner === owner && k !== kid && !v.retireAt) v.retireAt = retireAt;
    }
    this.ring.set(kid, { key, salt, owner, generation, retireAt: 0 });
  }

  /** Use `kid` (a key already in the ring) for everything we send from now on. */
  setSendKey(kid) {
    if (!this.ring.has(kid)) throw new Error(`e2ee: no key ${kid} in the ring`);
    this.sendKid = kid;
    if (!this.counters.has(kid)) this.counters.set(kid, 0);
  }

  /** Forget every key of a participant who left (their frames are dropped from now on). */
  dropOwner(owner) {
    for (const [k, v] of this.ring) if (v.owner === owner) this.ring.delete(k);
  }

  /**
   * One outgoing frame: null when we have no sending key yet (the frame is not sent at all: never in clear).
   * @param {Uint8Array} data @param {string} mimeType @param {string} [frameType]
   * @returns {Promise<Uint8Array|null>}
   */
  async encrypt(data, mimeType, frameType) {
    const kid = this.sendKid;
    const k = kid == null ? undefined : this.ring.get(kid);
    if (kid == null || !k) { this.stats.sendWithoutKey++; return null; }
    const ctr = /** @type {number} */ (this.counters.get(kid));
    this.counters.set(kid, ctr + 1); // taken before the await: two frames in flight never share a counter
    const clear = Math.min(clearBytes(mimeType, frameType), data.length);
    const header = encodeHeader(kid, ctr);
    const aad = new Uint8Array(clear + header.length);
    aad.set(data.subarray(0, clear));
    aad.set(header, clear);
    const ct = new Uint8Array(await globalThis.crypto.subtle.encrypt(
      { name: 'AES-GCM', iv: nonce(k.salt, ctr), additionalData: aad, tagLength: TAG_BYTES * 8 }, k.key, data.subarray(clear)));
    const out = new Uint8Array(aad.length + ct.length);
    out.set(aad);
    out.set(ct, aad.length);
    this.stats.encrypted++;
    return out;
  }

  /**
   * One incoming frame: the plaintext, or null when it is dropped (no key for its KID, a retired key, a tag that
   * does not verify, bytes that are no SFrame frame). A dropped frame is counted, never passed to the decoder.
   * @param {Uint8Array} data @param {string} mimeType @param {string} [frameType]
   * @returns {Promise<Uint8Array|null>}
   */
  async decrypt(data, mimeType, frameType) {
    const clear = clearBytes(mimeType, frameType);
    const h = data.length > clear ? decodeHeader(data, clear) : null;
    if (!h || data.length < clear + h.length + TAG_BYTES) { this.stats.malformed++; return null; }
    const k = this.ring.get(h.kid);
    if (!k) { this.stats.noKey++; return null; }
    if (k.retireAt && this.now() > k.retireAt) {
      this.ring.delete(h.kid);
      this.stats.noKey++;
      return null;
    }
    const aadLen = clear + h.length;
    let pt;
    try {
      pt = await globalThis.crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: nonce(k.salt, h.ctr), additionalData: data.subarray(0, aadLen), tagLength: TAG_BYTES * 8 }, k.key, data.subarray(aadLen));
    } catch {
      this.stats.tagFailures++;
      return null;
    }
    const out = new Uint8Array(clear + pt.byteLength);
    out.set(data.subarray(0, clear));
    out.set(new Uint8Array(pt), clear);
    this.stats.decrypted++;
    this.decryptedBy[k.owner] = (this.decryptedBy[k.owner] || 0) + 1;
    this.lastKidBy[k.owner] = h.kid;
    return out;
  }
}
