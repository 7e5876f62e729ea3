// A long, seeded fuzz run of the SDK's SFrame parser and frame decryption (docs/e2ee.md "Frame format"), in Node
// with its WebCrypto: the same modules the browser worker runs. Usage:
//   node bench/e2ee/fuzz-sframe.mjs [frames=200000] [seed=1]
// Every frame is random bytes or a real encrypted frame mutated (bit flips, truncation, extension, a header
// rewritten to another KID/CTR, a clear prefix changed). The run fails (exit 1) if the parser throws, if any frame
// that is not the unmodified original decrypts, or if a dropped frame is not counted. A seed reproduces a run.

import { decodeHeader, encodeHeader } from '../../controller-pod/src/main/resources/public/sdk/e2ee/sframe.js';
import { FrameCryptor } from '../../controller-pod/src/main/resources/public/sdk/e2ee/frame-cryptor.js';

const frames = Number(process.argv[2] ?? 200_000);
const seed = Number(process.argv[3] ?? 1);

/** mulberry32: a small seeded PRNG (a fuzz run must be reproducible from its seed). */
function prng(s) {
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = prng(seed);
const int = (n) => Math.floor(rnd() * n);
const bytes = (n) => { const b = new Uint8Array(n); for (let i = 0; i < n; i++) b[i] = int(256); return b; };
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

const KINDS = [['video/VP8', 'key'], ['video/VP8', 'delta'], ['audio/opus', undefined], ['video/VP9', 'delta']];
const KID = 0x5eed * 65536 + 3;

const sender = new FrameCryptor();
const receiver = new FrameCryptor();
const base = bytes(16);
await sender.setKey(KID, base, 'me', 1);
sender.setSendKey(KID);
await receiver.setKey(KID, base, 'sender', 1);

// a pool of real frames of each kind to mutate
const originals = [];
for (let i = 0; i < 64; i++) {
  const [mime, type] = KINDS[i % KINDS.length];
  const plain = bytes(1 + int(1200));
  originals.push({ mime, type, plain, enc: /** @type {Uint8Array} */ (await sender.encrypt(plain, mime, type)) });
}
// the originals themselves decrypt (the oracle: a mutation that still decrypts is a bug, not a lucky pass)
for (const o of originals) {
  const out = await receiver.decrypt(o.enc, o.mime, o.type);
  if (!out || !same(new Uint8Array(out), o.plain)) { console.error('an unmodified frame did not decrypt'); process.exit(1); }
}
const before = { ...receiver.stats };

function mutate(o) {
  const b = new Uint8Array(o.enc);
  switch (int(6)) {
    case 0: { const n = 1 + int(4); for (let k = 0; k < n; k++) b[int(b.length)] ^= 1 + int(255); return b; }
    case 1: return b.slice(0, int(b.length));
    case 2: { const x = new Uint8Array(b.length + 1 + int(16)); x.set(b); x.set(bytes(x.length - b.length), b.length); return x; }
    case 3: { // the header rewritten to another counter (or KID) of the same length or not
      const clear = o.mime === 'video/VP8' ? (o.type === 'key' ? 10 : 3) : o.mime === 'audio/opus' ? 1 : 0;
      const h = decodeHeader(b, clear);
      if (!h) return b;
      const nh = encodeHeader(rnd() < 0.5 ? KID : int(2 ** 32), h.ctr + 1 + int(1000));
      const x = new Uint8Array(b.length - h.length + nh.length);
      x.set(b.subarray(0, clear)); x.set(nh, clear); x.set(b.subarray(clear + h.length), clear + nh.length);
      return x;
    }
    case 4: { if (b.length) b[0] ^= 1 << int(8); return b; } // the clear prefix (authenticated)
    default: { b[b.length - 1 - int(Math.min(16, b.length))] ^= 0x80; return b; } // the tag
  }
}

let passed = 0, thrown = 0;
const t0 = process.hrtime.bigint();
for (let i = 0; i < frames; i++) {
  const useRandom = rnd() < 0.4;
  const o = originals[int(originals.length)];
  const frame = useRandom ? bytes(int(96)) : mutate(o);
  const [mime, type] = useRandom ? KINDS[int(KINDS.length)] : [o.mime, o.type];
  try {
    decodeHeader(frame, int(12));
    const out = await receiver.decrypt(frame, mime, type);
    if (out && !(same(frame, o.enc) && !useRandom)) passed++;
  } catch (e) {
    thrown++;
    if (thrown < 5) console.error(`frame ${i} threw: ${e?.stack || e}`);
  }
}
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
const s = receiver.stats;
const counted = (s.malformed - before.malformed) + (s.noKey - before.noKey) + (s.tagFailures - before.tagFailures)
  + ((s.unencryptedDropped ?? 0) - (before.unencryptedDropped ?? 0));
const unchanged = (s.decrypted ?? 0) - (before.decrypted ?? 0); // mutations that happened to leave the frame as it was
const result = { frames, seed, ms: Math.round(ms), framesPerSecond: Math.round(frames / (ms / 1000)), passed, thrown,
  counted, unchangedFramesDecrypted: unchanged, stats: s };
console.log(`e2ee fuzz: ${JSON.stringify(result)}`);
if (passed || thrown || counted + unchanged !== frames) { console.error('FAILED'); process.exit(1); }
