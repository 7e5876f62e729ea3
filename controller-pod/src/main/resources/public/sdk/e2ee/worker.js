// The encoded-transform worker of an end-to-end encrypted meeting (docs/e2ee.md "Browser paths"). One per client:
// every sender's and receiver's frames pass through it, encrypted or decrypted by one FrameCryptor. Keys arrive by
// postMessage from the page (session.js); they never leave this worker and the page again.
//
// Two ways frames get here: RTCRtpScriptTransform (the `rtctransform` event, the standard path) or streams from
// createEncodedStreams() posted with {op:'stream'} (the older Chromium path).

import { FrameCryptor } from './frame-cryptor.js';

const cryptor = new FrameCryptor();
let streams = 0;

/** Pipes one sender's or receiver's encoded frames through the cryptor; a frame it drops never goes on. */
function pipe(readable, writable, dir, kind) {
  streams++;
  const fallback = kind === 'audio' ? 'audio/opus' : 'video/VP8';
  const transform = new TransformStream({
    async transform(frame, controller) {
      if (!frame.data || frame.data.byteLength === 0) { controller.enqueue(frame); return; }
      const meta = frame.getMetadata ? frame.getMetadata() : {};
      const mime = meta.mimeType || fallback;
      const data = new Uint8Array(frame.data);
      const out = dir === 'encrypt' ? await cryptor.encrypt(data, mime, frame.type) : await cryptor.decrypt(data, mime, frame.type);
      if (!out) return;
      frame.data = out.buffer;
      controller.enqueue(frame);
    },
  });
  readable.pipeThrough(transform).pipeTo(writable).catch(() => { streams--; });
}

self.addEventListener('rtctransform', (/** @type {any} */ e) => {
  const t = e.transformer;
  pipe(t.readable, t.writable, t.options.dir, t.options.kind);
});

self.addEventListener('message', async (e) => {
  const m = e.data || {};
  try {
    if (m.op === 'stream') pipe(m.readable, m.writable, m.dir, m.kind);
    else if (m.op === 'setKey') await cryptor.setKey(m.kid, new Uint8Array(m.baseKey), m.owner, m.generation);
    else if (m.op === 'setSendKey') cryptor.setSendKey(m.kid);
    else if (m.op === 'dropOwner') cryptor.dropOwner(m.owner);
    if (m.op === 'setKey' || m.op === 'setSendKey') self.postMessage({ op: 'ack', id: m.id });
  } catch (err) {
    self.postMessage({ op: 'ack', id: m.id, error: String(err && err.message || err) });
  }
});

// The page shows per-participant status from these (which senders we can read, what we dropped).
setInterval(() => {
  self.postMessage({ op: 'stats', stats: cryptor.stats, decryptedBy: cryptor.decryptedBy, lastKidBy: cryptor.lastKidBy, sendKid: cryptor.sendKid, streams });
}, 250);
