// Key management of one participation in an end-to-end encrypted meeting (docs/e2ee.md "Key schedule").
//
// - Our identity (keys.js) is announced on the signaling socket; the controller relays everyone's public keys.
// - Members = admitted participants (the roster, which follows the control events in cursor order) whose
//   identity we know. Whenever that set changes (someone joined, or left / was removed / denied / their grace
//   ended), we make a NEW sender key and send it, wrapped, to the current members only: a departed device never
//   gets it, and a joiner never gets a key that protected earlier media.
// - We switch our frames to the new key shortly after sending it (switchDelayMs) so receivers have it first;
//   receivers keep a sender's previous key for OVERLAP_MS (frame-cryptor.js).
//
// `cryptor` is the FrameCryptor itself (tests, the Node bench) or the worker proxy (client.js).

import { makeIdentity, importPublic, wrapContext, pairKey, packMediaKey, unpackMediaKey, seal, open, securityCode } from './keys.js';

/** @typedef {'encrypted'|'waiting_for_keys'|'rotating_keys'} PeerStatus */

/**
 * @typedef {Object} KeySink
 * @property {(kid:number, baseKey:Uint8Array, owner:string, generation:number) => Promise<void>} setKey
 * @property {(kid:number) => (void|Promise<void>)} setSendKey
 * @property {(owner:string) => void} dropOwner
 */

/**
 * @typedef {Object} SessionOptions
 * @property {string} meetingId
 * @property {string} selfId               our participant id
 * @property {(msg:Object) => boolean|void} send  a signaling message
 * @property {KeySink} cryptor
 * @property {() => number} epoch          the meeting's controller_epoch as we know it
 * @property {number} [switchDelayMs=300]  how long after sending a new key we start using it
 * @property {() => void} [onChange]       status or security code changed
 */

export class E2eeSession {
  /** @param {SessionOptions} o */
  constructor(o) {
    this.o = o;
    this.switchDelayMs = o.switchDelayMs ?? 300;
    /** @type {{privateKey:CryptoKey, publicKey:CryptoKey, publicRaw:string}|null} */ this.identity = null;
    /** participant id -> {raw, pub, out?: pair key we wrap with, in?: pair key we open with} */
    /** @type {Map<string, {raw:string, pub:CryptoKey, out?:CryptoKey, in?:CryptoKey}>} */ this.peers = new Map();
    /** admitted participants (not us) from the roster */
    /** @type {Set<string>} */ this.roster = new Set();
    /** who our current key was sent to */
    /** @type {Set<string>} */ this.recipients = new Set();
    this.tag = globalThis.crypto.getRandomValues(new Uint32Array(1))[0];
    this.generation = 0;
    /** @type {{kid:number, generation:number, baseKey:Uint8Array}|null} */ this.current = null;
    this.seq = 0;
    /** participant id -> newest key generation received from them */
    /** @type {Map<string, number>} */ this.received = new Map();
    /** participant id -> time a membership change made us expect a newer key from them */
    /** @type {Map<string, number>} */ this.expecting = new Map();
    /** envelopes whose sender's identity we do not know yet */
    /** @type {Object[]} */ this.early = [];
    this.rotating = Promise.resolve();
    this.rotateQueued = false;
    this.queuedReason = '';
    this.rotationsPending = 0;
    this.securityCode = '';
    /** Test hook: drop every key envelope addressed to us (proves the SFU forwards only ciphertext). */
    this.withholdKeys = false;
    this.counts = { keysSent: 0, keysReceived: 0, keysWithheld: 0, envelopesRejected: 0, refusedByServer: 0, rotations: 0 };
    /** When our newest key went into use (ms), and why it was made: for the rotation-time measurements. */
    this.lastRotation = { reason: '', startedAt: 0, startedWallMs: 0, sentAt: 0, inUseAt: 0, inUseWallMs: 0 };
    /** The last few membership changes and rotations (participant ids only, never key bytes): diagnostics. */
    /** @type {Object[]} */ this.history = [];
    this.closed = false;
  }

  #note(entry) {
    this.history.push({ at: Date.now(), ...entry });
    if (this.history.length > 32) this.history.shift();
  }

  /** Makes our identity and announces it. */
  async start() {
    this.identity = await makeIdentity();
    // A key of our own at once (nobody to send it to yet): our frames flow encrypted from the first one, so
    // receivers see packets (undecryptable until our key reaches them) instead of a silent, "stalled" track.
    await this.rotate('start');
    this.#announce();
    await this.#refreshCode();
  }

  /** Announce again (a resumed socket: anyone who missed our key sends theirs again). */
  #announce() {
    if (this.identity) this.o.send({ type: 'e2ee_identity', public_key: this.identity.publicRaw });
  }

  reannounce() { this.#announce(); }

  /**
   * A signaling message or a (volatile) event for us: true when it was ours.
   * @param {any} m
   */
  handle(m) {
    if (this.closed || !m) return false;
    if (m.type === 'e2ee_identities') {
      this.#learnAll(m.identities || []).catch((e) => console.warn(`parley e2ee: ${e?.message || e}`));
      return true;
    }
    if (m.type === 'e2ee_identity') {
      this.#learn(String(m.participant_id), String(m.public_key), true).catch((e) => console.warn(`parley e2ee: ${e?.message || e}`));
      return true;
    }
    if (m.type === 'e2ee_key') {
      this.#receive(m).catch((e) => console.warn(`parley e2ee: ${e?.message || e}`));
      return true;
    }
    if (m.type === 'error' && String(m.code || '').startsWith('e2ee_')) {
      this.counts.refusedByServer++;
      console.warn(`parley e2ee: the controller refused a key message: ${m.code} ${m.reason || ''}`);
      // Our roster was behind the controller's (someone left in between): it catches up, and the next
      // membership change sends a new key anyway; until then, try again with what we know now.
      if (m.code === 'e2ee_envelope_refused') setTimeout(() => this.rotate('refused'), 200);
      return true;
    }
    return false;
  }

  /**
   * The admitted participants (not us), in control-event order. A departure or an arrival among members makes a
   * new sender key.
   * @param {string[]} ids
   */
  setRoster(ids) {
    const next = new Set(ids.map(String).filter((p) => p !== this.o.selfId));
    const gone = [...this.roster].filter((p) => !next.has(p));
    const added = [...next].filter((p) => !this.roster.has(p));
    if (gone.length || added.length) this.#note({ roster: { added, gone } });
    this.roster = next;
    for (const p of gone) {
      this.o.cryptor.dropOwner(p);
      this.peers.delete(p);
      this.received.delete(p);
      this.expecting.delete(p);
    }
    if (gone.length || this.#membersDiffer()) this.#membershipChanged(gone.length ? 'departure' : 'join');
  }

  /** Members: admitted and with a known identity. */
  members() {
    return [...this.roster].filter((p) => this.peers.has(p)).sort();
  }

  #membersDiffer() {
    const m = this.members();
    return m.length !== this.recipients.size || m.some((p) => !this.recipients.has(p));
  }

  #membershipChanged(reason) {
    const now = performance.now();
    for (const p of this.members()) this.expecting.set(p, now); // every sender makes a new key now
    this.rotate(reason);
    this.#refreshCode();
  }

  async #learnAll(list) {
    for (const it of list) await this.#learn(String(it.participant_id), String(it.public_key), false);
    if (this.#membersDiffer() || !this.current) this.#membershipChanged('join');
  }

  /** A participant's identity (again). A new or changed key: a membership change; the same: resend our key. */
  async #learn(pid, raw, single) {
    if (pid === this.o.selfId) return;
    const known = this.peers.get(pid);
    this.#note({ identity: pid, known: !!known, same: known?.raw === raw, single, inRoster: this.roster.has(pid) });
    if (known && known.raw === raw) {
      if (single && this.current && this.roster.has(pid)) await this.#sendKey([pid]);
      return;
    }
    this.peers.set(pid, { raw, pub: await importPublic(raw) });
    this.received.delete(pid);
    const waiting = this.early.filter((m) => String(m.from) === pid);
    this.early = this.early.filter((m) => String(m.from) !== pid);
    for (const m of waiting) await this.#receive(m);
    if (single && this.roster.has(pid)) this.#membershipChanged('join');
    else this.#refreshCode();
  }

  /** Makes and sends a new sender key (coalesced: one rotation at a time, one more if asked meanwhile). */
  rotate(reason = 'manual') {
    // A departure folded into an already queued rotation names it: that rotation is the one that shuts the
    // departed device out (it reads the members when it runs).
    if (this.rotateQueued) {
      if (reason === 'departure') this.queuedReason = reason;
      return this.rotating;
    }
    this.rotateQueued = true;
    this.queuedReason = reason;
    this.rotationsPending++;
    this.rotating = this.rotating.then(async () => {
      this.rotateQueued = false;
      if (this.closed || !this.identity) return;
      await this.#rotateNow(this.queuedReason);
    }).catch((e) => console.warn(`parley e2ee: rotation failed: ${e?.message || e}`))
      .finally(() => { this.rotationsPending--; });
    return this.rotating;
  }

  /** No rotation queued or running and our newest key in use (tests wait for this before measuring one). */
  settled() {
    return this.rotationsPending === 0 && !!this.current && this.lastRotation.inUseAt > 0;
  }

  async #rotateNow(reason) {
    const startedAt = performance.now();
    const startedWallMs = Date.now();
    // The recipients are fixed before the first await: a roster update arriving meanwhile then sees no
    // difference (no second, redundant rotation), and a real change queues the next one.
    const to = this.members();
    this.recipients = new Set(to);
    this.generation++;
    const kid = this.tag * 65536 + (this.generation % 65536);
    const baseKey = globalThis.crypto.getRandomValues(new Uint8Array(16));
    this.current = { kid, generation: this.generation, baseKey };
    // The worker installs the key while the envelopes are sealed and sent (a busy worker answers late; the
    // receivers' head start need not wait for it). Both are done before the switch delay starts.
    const installed = Promise.resolve(this.o.cryptor.setKey(kid, baseKey, this.o.selfId, this.generation));
    this.#note({ rotation: reason, generation: this.generation, to });
    try {
      await this.#sendKey(to);
    } finally {
      await installed;
    }
    const sentAt = performance.now();
    this.counts.rotations++;
    this.lastRotation = { reason, startedAt, startedWallMs, sentAt, inUseAt: 0, inUseWallMs: 0 };
    const rotation = this.lastRotation;
    const use = async () => {
      if (this.current?.kid !== kid || this.closed) return;
      await this.o.cryptor.setSendKey(kid);
      rotation.inUseAt = performance.now();
      rotation.inUseWallMs = Date.now(); // comparable across pages (the browser tests time a rotation with it)
      this.#changed();
    };
    // Nobody to wait for (alone, or our first key): use it at once; else give the envelopes a head start.
    if (to.length === 0 || this.generation === 1) await use();
    else setTimeout(use, this.switchDelayMs);
  }

  /** Our current key, wrapped for each of `to`, in one batch. */
  async #sendKey(to) {
    const cur = this.current;
    const id = this.identity;
    if (!cur || !id || to.length === 0) return;
    const plaintext = packMediaKey(cur.kid, cur.generation, cur.baseKey);
    const envelopes = [];
    for (const p of to) {
      const peer = this.peers.get(p);
      if (!peer) continue;
      const ctx = wrapContext(this.o.meetingId, this.o.selfId, p);
      peer.out = peer.out || await pairKey(id.privateKey, peer.pub, ctx);
      envelopes.push({ to: p, ...(await seal(peer.out, ctx, plaintext)) });
    }
    if (!envelopes.length) return;
    this.seq++;
    this.counts.keysSent += envelopes.length;
    this.o.send({ type: 'e2ee_keys', controller_epoch: this.o.epoch(), seq: this.seq, key_generation: cur.generation, envelopes });
  }

  async #receive(m) {
    if (this.withholdKeys) { this.counts.keysWithheld++; return; }
    const from = String(m.from);
    const peer = this.peers.get(from);
    if (!peer) { if (this.early.length < 256) this.early.push(m); return; }
    if (!this.identity) return;
    const ctx = wrapContext(this.o.meetingId, from, this.o.selfId);
    peer.in = peer.in || await pairKey(this.identity.privateKey, peer.pub, ctx);
    const plain = await open(peer.in, ctx, m.iv, m.ciphertext);
    const key = plain && unpackMediaKey(plain);
    if (!key || key.generation <= (this.received.get(from) ?? 0)) { this.counts.envelopesRejected++; return; }
    await this.o.cryptor.setKey(key.kid, key.baseKey, from, key.generation);
    this.received.set(from, key.generation);
    this.expecting.delete(from);
    this.counts.keysReceived++;
    this.#changed();
  }

  /** @returns {PeerStatus} */
  peerStatus(pid) {
    if (!this.received.has(pid)) return 'waiting_for_keys';
    return this.expecting.has(pid) ? 'rotating_keys' : 'encrypted';
  }

  /** The meeting's status as we see it and each remote member's. */
  status() {
    /** @type {Object<string, PeerStatus>} */
    const peers = {};
    for (const p of this.roster) peers[p] = this.peerStatus(p);
    const all = Object.values(peers);
    /** @type {PeerStatus} */
    let meeting = 'encrypted';
    if (!this.current || all.includes('waiting_for_keys')) meeting = 'waiting_for_keys';
    else if (all.includes('rotating_keys') || (this.current && !this.lastRotation.inUseAt && this.generation > 1)) meeting = 'rotating_keys';
    return { meeting, peers, securityCode: this.securityCode, generation: this.generation };
  }

  async #refreshCode() {
    if (!this.identity) return;
    /** @type {Object<string, string>} */
    const ids = { [this.o.selfId]: this.identity.publicRaw };
    for (const p of this.members()) ids[p] = /** @type {any} */ (this.peers.get(p)).raw;
    const code = await securityCode(ids);
    if (code !== this.securityCode) { this.securityCode = code; this.#changed(); }
  }

  #changed() { this.o.onChange?.(); }

  close() { this.closed = true; }
}
