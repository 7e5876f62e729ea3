// Puts every sender and receiver of a peer connection behind the e2ee worker (docs/e2ee.md "Browser paths").
//
// Path 'script-transform': RTCRtpScriptTransform (the standard API; Chromium 156, Safari, Firefox), set on
// sender.transform / receiver.transform. Path 'encoded-streams': createEncodedStreams() (older Chromium), which
// needs `encodedInsertableStreams: true` on the peer connection and posts the streams to the worker.
// No path = the browser cannot take part in an e2ee meeting (`e2ee_unsupported`): there is no clear fallback.

/** @typedef {'script-transform'|'encoded-streams'} TransformPath */

/** Which path this browser has, or null. @returns {TransformPath|null} */
export function transformPath() {
  if (typeof globalThis.RTCRtpScriptTransform === 'function') return 'script-transform';
  const proto = /** @type {any} */ (globalThis.RTCRtpSender)?.prototype;
  if (proto && typeof proto.createEncodedStreams === 'function') return 'encoded-streams';
  return null;
}

/**
 * The page's handle on the worker: it forwards keys (the worker keeps them) and receives the worker's counts.
 */
export class WorkerCryptor {
  /** @param {{path?:TransformPath|null, workerUrl?:string|URL}} [o] */
  constructor(o = {}) {
    this.path = o.path === undefined ? transformPath() : o.path;
    if (!this.path) throw new Error('e2ee_unsupported');
    this.worker = new Worker(o.workerUrl || new URL('./worker.js', import.meta.url), { type: 'module', name: 'parley-e2ee' });
    /** @type {{stats:Object<string, number>, decryptedBy:Object<string, number>, lastKidBy:Object<string, number>, sendKid:number|null, streams:number}} */
    this.latest = { stats: {}, decryptedBy: {}, lastKidBy: {}, sendKid: null, streams: 0 };
    this.nextId = 0;
    /** @type {Map<number, {resolve:(v:any) => void, reject:(e:Error) => void}>} */ this.acks = new Map();
    /** @type {WeakSet<object>} */ this.attached = new WeakSet();
    /** @type {(() => void)|null} */ this.onStats = null;
    this.worker.onmessage = (e) => {
      const m = e.data || {};
      if (m.op === 'stats') { this.latest = m; this.onStats?.(); }
      else if (m.op === 'ack') {
        const a = this.acks.get(m.id);
        this.acks.delete(m.id);
        if (a) (m.error ? a.reject(new Error(m.error)) : a.resolve(undefined));
      }
    };
  }

  /** @param {Object} msg @param {Transferable[]} [transfer] */
  #call(msg, transfer = []) {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.acks.set(id, { resolve, reject });
      this.worker.postMessage({ ...msg, id }, transfer);
    });
  }

  /** @param {number} kid @param {Uint8Array} baseKey @param {string} owner @param {number} generation */
  async setKey(kid, baseKey, owner, generation) {
    const copy = baseKey.slice();
    await this.#call({ op: 'setKey', kid, baseKey: copy.buffer, owner, generation }, [copy.buffer]);
  }

  /** @param {number} kid */
  async setSendKey(kid) { await this.#call({ op: 'setSendKey', kid }); }

  /** @param {string} owner */
  dropOwner(owner) { this.worker.postMessage({ op: 'dropOwner', owner }); }

  /** RTCPeerConnection settings this path needs. */
  pcConfig() {
    return this.path === 'encoded-streams' ? { encodedInsertableStreams: true } : {};
  }

  /** Every transceiver of `pc` not yet behind the worker gets its transform (senders encrypt, receivers decrypt). */
  attach(pc) {
    for (const t of pc.getTransceivers()) {
      const kind = t.receiver.track.kind;
      if (t.direction !== 'recvonly' && !this.attached.has(t.sender)) this.#one(t.sender, 'encrypt', kind);
      if (t.direction !== 'sendonly' && t.direction !== 'inactive' && !this.attached.has(t.receiver)) this.#one(t.receiver, 'decrypt', kind);
    }
  }

  /** @param {RTCRtpSender|RTCRtpReceiver} end @param {'encrypt'|'decrypt'} dir @param {string} kind */
  #one(end, dir, kind) {
    this.attached.add(end);
    if (this.path === 'script-transform') {
      /** @type {any} */ (end).transform = new /** @type {any} */ (globalThis).RTCRtpScriptTransform(this.worker, { dir, kind });
    } else {
      const { readable, writable } = /** @type {any} */ (end).createEncodedStreams();
      this.worker.postMessage({ op: 'stream', readable, writable, dir, kind }, [readable, writable]);
    }
  }

  close() { this.worker.terminate(); }
}
