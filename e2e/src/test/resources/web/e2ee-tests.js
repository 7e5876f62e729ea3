// In-page tests of the SDK's end-to-end encryption (docs/e2ee.md): the SFrame frame format, the frame cryptor
// (counters, tags, the key overlap), a fuzz run of the frame parser, the key schedule of several E2eeSessions
// relayed the way the controller relays them, and both encoded-transform paths on a real peer connection.
// Run in headless Chromium by dev.parley.e2e.web.E2eeInPageIT.

import { test, ok, eq, waitFor, run, registered } from './minitest.js';
import { encodeHeader, decodeHeader, clearBytes, nonce, MAX_VALUE } from '/sdk/e2ee/sframe.js';
import { FrameCryptor } from '/sdk/e2ee/frame-cryptor.js';
import { E2eeSession } from '/sdk/e2ee/session.js';
import { WorkerCryptor, transformPath } from '/sdk/e2ee/transforms.js';
import { securityCode } from '/sdk/e2ee/keys.js';

const rand = (n) => crypto.getRandomValues(new Uint8Array(n));
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** A cryptor with one key of `owner` installed as its sending key. */
async function cryptorWithKey(kid = 1234567, owner = 'a', o = {}) {
  const c = new FrameCryptor(o);
  const base = rand(16);
  await c.setKey(kid, base, owner, 1);
  c.setSendKey(kid);
  return { c, base, kid };
}

// ------------------------------------------------------------------ header

test('sframe header: KID and CTR round-trip at every length, short forms in one byte', () => {
  const values = [0, 1, 7, 8, 255, 256, 65535, 65536, 2 ** 24, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 3, 2 ** 48 + 5, MAX_VALUE];
  for (const kid of values) {
    for (const ctr of values) {
      const h = encodeHeader(kid, ctr);
      const d = decodeHeader(h);
      eq(d, { kid, ctr, length: h.length }, `kid ${kid} ctr ${ctr}`);
    }
  }
  eq([...encodeHeader(0, 0)], [0x00], 'KID 0, CTR 0');
  eq([...encodeHeader(3, 5)], [0x35], 'both below 8: the config byte only');
  eq([...encodeHeader(8, 1)], [0x81, 8], "KID 8 takes one extension byte (X=1, K=0), CTR 1 stays in the config byte");
  eq([...encodeHeader(1, 256)], [0x19, 1, 0], 'CTR 256 takes two bytes (Y=1, C=1)');
  eq(encodeHeader(2 ** 40, 0).length, 7, 'a 6-byte KID');
});

test('sframe header: a truncated header or a value beyond 2^53 is no header', () => {
  const h = encodeHeader(2 ** 40, 2 ** 33);
  for (let n = 0; n < h.length; n++) eq(decodeHeader(h.subarray(0, n)), null, `first ${n} bytes`);
  eq(decodeHeader(new Uint8Array([0xf0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])), null, '8-byte KID above 2^53');
  let threw = false;
  try { encodeHeader(-1, 0); } catch { threw = true; }
  ok(threw, 'a negative KID is refused');
});

test('clear bytes: VP8 key 10, VP8 delta 3, Opus TOC 1, VP9/AV1/H264 none', () => {
  eq(clearBytes('video/VP8', 'key'), 10);
  eq(clearBytes('video/vp8', 'delta'), 3);
  eq(clearBytes('audio/opus', undefined), 1);
  eq(clearBytes('video/VP9', 'key'), 0);
  eq(clearBytes('video/AV1', 'delta'), 0);
});

test('nonce: salt XOR counter, right-aligned; distinct counters give distinct nonces', () => {
  const salt = new Uint8Array(12).fill(0xff);
  eq([...nonce(salt, 0)], [...salt]);
  eq([...nonce(salt, 0x0102)].slice(10), [0xfe, 0xfd]);
  ok(!same(nonce(salt, 1), nonce(salt, 2)));
});

// ------------------------------------------------------------------ frame cryptor

test('frame: VP8 key frame keeps its 10 header bytes clear, the rest is ciphertext, decrypts back', async () => {
  const { c } = await cryptorWithKey();
  const frame = rand(500);
  frame[0] &= 0xfe; // P bit 0 = key frame, what the SFU reads
  const enc = /** @type {Uint8Array} */ (await c.encrypt(frame, 'video/VP8', 'key'));
  ok(enc, 'encrypted');
  ok(same(enc.subarray(0, 10), frame.subarray(0, 10)), 'payload header clear');
  const h = decodeHeader(enc, 10);
  eq(h && h.kid, 1234567, 'KID after the clear bytes');
  eq(enc.length, 500 + /** @type {any} */ (h).length + 16, 'header + tag added');
  ok(!same(enc.subarray(10 + /** @type {any} */ (h).length, 500), frame.subarray(10)), 'payload encrypted');
  const back = await c.decrypt(enc, 'video/VP8', 'key');
  ok(back && same(back, frame), 'round trip');
  const audio = rand(80);
  const ea = /** @type {Uint8Array} */ (await c.encrypt(audio, 'audio/opus'));
  eq(ea[0], audio[0], 'Opus TOC byte clear');
  ok(same(/** @type {Uint8Array} */ (await c.decrypt(ea, 'audio/opus')), audio));
});

test('frame: the counter is never reused under one key, even with frames encrypted concurrently', async () => {
  const { c } = await cryptorWithKey(99);
  const frames = await Promise.all(Array.from({ length: 2000 }, () => c.encrypt(rand(40), 'video/VP8', 'delta')));
  const ctrs = frames.map((f) => /** @type {any} */ (decodeHeader(/** @type {Uint8Array} */ (f), 3)).ctr);
  eq(new Set(ctrs).size, 2000, 'distinct counters');
  eq(Math.min(...ctrs), 0);
  eq(Math.max(...ctrs), 1999);
  // switching away and back to a key continues its counter
  await c.setKey(100, rand(16), 'a', 2);
  c.setSendKey(100);
  c.setSendKey(99);
  const again = /** @type {Uint8Array} */ (await c.encrypt(rand(40), 'video/VP8', 'delta'));
  eq(/** @type {any} */ (decodeHeader(again, 3)).ctr, 2000, 'continues after 1999');
});

test('frame: a failed tag is dropped and counted (ciphertext, tag, clear prefix or header changed)', async () => {
  const { c } = await cryptorWithKey();
  const frame = rand(300);
  const enc = /** @type {Uint8Array} */ (await c.encrypt(frame, 'video/VP8', 'key'));
  const positions = [0, 5, 9, 12, 100, enc.length - 1];
  for (const p of positions) {
    const bad = enc.slice();
    bad[p] ^= 0x01;
    const out = await c.decrypt(bad, 'video/VP8', 'key');
    eq(out, null, `byte ${p} flipped`);
  }
  ok(c.stats.tagFailures + c.stats.noKey >= positions.length, 'each counted');
  ok(c.stats.tagFailures >= 5, `tag failures counted: ${JSON.stringify(c.stats)}`);
  eq(c.stats.decrypted, 0, 'nothing passed');
});

test('frame: no key for the KID = dropped and counted; nothing is sent before we have a key', async () => {
  const { c } = await cryptorWithKey(5);
  const other = new FrameCryptor();
  const enc = /** @type {Uint8Array} */ (await c.encrypt(rand(60), 'video/VP8', 'delta'));
  eq(await other.decrypt(enc, 'video/VP8', 'delta'), null);
  eq(other.stats.noKey, 1);
  eq(await other.encrypt(rand(60), 'video/VP8', 'delta'), null, 'never sent in clear');
  eq(other.stats.sendWithoutKey, 1);
  eq(await other.decrypt(rand(2), 'video/VP8', 'delta'), null, 'too short');
  eq(other.stats.malformed, 1);
});

test('frame: a sender\'s previous key decrypts for the overlap only (<= 2 s)', async () => {
  let now = 0;
  const tx = new FrameCryptor();
  const rx = new FrameCryptor({ now: () => now });
  const k1 = rand(16);
  const k2 = rand(16);
  await tx.setKey(1, k1, 'a', 1);
  await tx.setKey(2, k2, 'a', 2);
  tx.setSendKey(1);
  const old = /** @type {Uint8Array} */ (await tx.encrypt(rand(50), 'audio/opus'));
  await rx.setKey(1, k1, 'a', 1);
  await rx.setKey(2, k2, 'a', 2); // newer key arrives at t=0
  now = 1500;
  ok(await rx.decrypt(old, 'audio/opus'), 'in flight within the overlap');
  now = 2100;
  eq(await rx.decrypt(old, 'audio/opus'), null, 'after the overlap');
  eq(rx.stats.noKey, 1);
});

test('fuzz: the frame parser never throws and never passes a frame it cannot verify', async () => {
  const { c } = await cryptorWithKey(77);
  const good = /** @type {Uint8Array} */ (await c.encrypt(rand(120), 'video/VP8', 'delta'));
  const kinds = [['video/VP8', 'key'], ['video/VP8', 'delta'], ['audio/opus', undefined], ['video/VP9', 'delta']];
  let passed = 0;
  for (let i = 0; i < 4000; i++) {
    let bytes;
    if (i % 2) {
      bytes = rand(Math.floor(Math.random() * 64));
    } else {
      bytes = good.slice(0, Math.max(0, good.length - Math.floor(Math.random() * 8)));
      for (let k = 0; k < 1 + (i % 4); k++) if (bytes.length) bytes[Math.floor(Math.random() * bytes.length)] ^= 1 + Math.floor(Math.random() * 255);
    }
    decodeHeader(bytes, Math.floor(Math.random() * 4));
    const [mime, type] = kinds[i % kinds.length];
    const out = await c.decrypt(bytes, mime, type);
    if (out) passed++;
  }
  eq(passed, 0, 'no random or mutated frame decrypted');
  const s = c.stats;
  eq(s.malformed + s.noKey + s.tagFailures, 4000, `every frame counted: ${JSON.stringify(s)}`);
});

// ------------------------------------------------------------------ key schedule

/**
 * The controller's relay as the sessions see it: identities to admitted members, each envelope to its recipient
 * if that recipient is a member (a removed one gets nothing). Messages arrive asynchronously.
 */
class Relay {
  constructor() { /** @type {Map<string, E2eeSession>} */ this.members = new Map(); /** @type {Map<string, string>} */ this.keys = new Map(); this.sent = []; }
  deliver(pid, m) { setTimeout(() => this.members.get(pid)?.handle(m), 1); }
  send(from, m) {
    this.sent.push({ from, m });
    if (!this.members.has(from)) return;
    if (m.type === 'e2ee_identity') {
      this.keys.set(from, m.public_key);
      for (const p of this.members.keys()) if (p !== from) this.deliver(p, { type: 'e2ee_identity', participant_id: from, public_key: m.public_key });
      this.deliver(from, { type: 'e2ee_identities', identities: [...this.keys].filter(([p]) => p !== from && this.members.has(p)).map(([p, k]) => ({ participant_id: p, public_key: k })) });
    } else if (m.type === 'e2ee_keys') {
      for (const e of m.envelopes) if (this.members.has(e.to)) this.deliver(e.to, { type: 'e2ee_key', from, key_generation: m.key_generation, iv: e.iv, ciphertext: e.ciphertext });
    }
  }
  /** Everyone's roster = the current members (what the control events tell each client). */
  roster() { for (const [p, s] of this.members) s.setRoster([...this.members.keys()].filter((x) => x !== p)); }
}

/** A participant: its session and its own FrameCryptor (what the worker holds). */
async function participant(relay, pid) {
  const cryptor = new FrameCryptor();
  const s = new E2eeSession({ meetingId: 'm1', selfId: pid, send: (m) => relay.send(pid, m), cryptor, epoch: () => 1, switchDelayMs: 10 });
  relay.members.set(pid, s);
  await s.start();
  relay.roster();
  return { s, cryptor };
}

/** Waits until `p` sends with a key generation >= g and everyone else in `readers` has its key. */
async function settled(p, readers, g) {
  await waitFor(() => p.s.generation >= g && p.s.lastRotation.inUseAt > 0 && readers.every((r) => (r.s.received.get(p.s.o.selfId) ?? 0) >= p.s.generation), 5000, `settled at ${g}`);
}

test('key schedule: members read each other; a late joiner cannot decrypt frames sent before it joined', async () => {
  const relay = new Relay();
  const a = await participant(relay, 'a');
  const b = await participant(relay, 'b');
  await settled(a, [b], 2);
  await settled(b, [a], 1);
  const before = /** @type {Uint8Array} */ (await a.cryptor.encrypt(rand(100), 'video/VP8', 'delta'));
  ok(await b.cryptor.decrypt(before, 'video/VP8', 'delta'), 'B reads A');
  const genBefore = a.s.generation;
  const c = await participant(relay, 'c');
  await settled(a, [b, c], genBefore + 1);
  eq(await c.cryptor.decrypt(before, 'video/VP8', 'delta'), null, 'C cannot read a frame from before its join');
  eq(c.cryptor.stats.noKey, 1);
  const after = /** @type {Uint8Array} */ (await a.cryptor.encrypt(rand(100), 'video/VP8', 'delta'));
  ok(await c.cryptor.decrypt(after, 'video/VP8', 'delta'), 'C reads what A sends after the join');
  ok(await b.cryptor.decrypt(after, 'video/VP8', 'delta'), 'B too');
  ok(await b.cryptor.decrypt(before, 'video/VP8', 'delta'), 'B keeps the previous key for the overlap');
  eq(a.s.status().meeting, 'encrypted');
  eq(c.s.peerStatus('a'), 'encrypted');
});

test('key schedule: after a removal every remaining sender has a new key the removed device never got', async () => {
  const relay = new Relay();
  const ps = [];
  for (const id of ['a', 'b', 'c']) ps.push(await participant(relay, id));
  const [a, b, c] = ps;
  for (const p of ps) await settled(p, ps.filter((x) => x !== p), 1);
  await waitFor(() => ps.every((p) => ps.every((q) => q === p || (q.s.received.get(p.s.o.selfId) ?? 0) >= p.s.generation)), 5000, 'all keys');
  const gens = ps.map((p) => p.s.generation);
  const codeBefore = a.s.securityCode;
  const t0 = performance.now();
  relay.members.delete('c'); // removed: the controller relays nothing to or from it any more
  relay.roster();
  await settled(a, [b], gens[0] + 1);
  await settled(b, [a], gens[1] + 1);
  const ms = performance.now() - t0;
  ok(ms < 1000, `rotation took ${Math.round(ms)} ms`);
  const fromA = /** @type {Uint8Array} */ (await a.cryptor.encrypt(rand(100), 'audio/opus'));
  const fromB = /** @type {Uint8Array} */ (await b.cryptor.encrypt(rand(100), 'audio/opus'));
  eq(await c.cryptor.decrypt(fromA, 'audio/opus'), null, 'C cannot read A after the rotation');
  eq(await c.cryptor.decrypt(fromB, 'audio/opus'), null, 'nor B');
  ok(await b.cryptor.decrypt(fromA, 'audio/opus'), 'B reads A');
  ok(await a.cryptor.decrypt(fromB, 'audio/opus'), 'A reads B');
  ok(a.s.securityCode !== codeBefore, 'the security code changed');
  eq(a.s.securityCode, b.s.securityCode, 'A and B show the same code');
});

test('key schedule: withheld key messages = waiting for keys, nothing decrypts', async () => {
  const relay = new Relay();
  const a = await participant(relay, 'a');
  const d = await participant(relay, 'd');
  d.s.withholdKeys = true;
  await waitFor(() => a.s.generation >= 2 && a.s.lastRotation.inUseAt > 0, 3000, 'A rotated');
  await new Promise((r) => setTimeout(r, 50));
  const f = /** @type {Uint8Array} */ (await a.cryptor.encrypt(rand(100), 'video/VP8', 'delta'));
  eq(await d.cryptor.decrypt(f, 'video/VP8', 'delta'), null);
  ok(d.s.counts.keysWithheld >= 1, 'the hook dropped the envelopes');
  eq(d.s.peerStatus('a'), 'waiting_for_keys');
  eq(d.s.status().meeting, 'waiting_for_keys');
});

test('security code: the same for the same identities, different when one changes', async () => {
  const x = await securityCode({ a: 'AAA', b: 'BBB' });
  eq(x, await securityCode({ b: 'BBB', a: 'AAA' }), 'order does not matter');
  ok(x !== await securityCode({ a: 'AAA', b: 'BBC' }));
  ok(/^\d{5} \d{5} \d{5} \d{5}$/.test(x), x);
});

// ------------------------------------------------------------------ browser paths

/** A canvas video track that keeps changing (so the encoder produces frames). */
function canvasTrack() {
  const cv = document.createElement('canvas');
  cv.width = 320; cv.height = 240;
  const g = /** @type {CanvasRenderingContext2D} */ (cv.getContext('2d'));
  let n = 0;
  const timer = setInterval(() => { g.fillStyle = `hsl(${(n++ * 17) % 360},80%,50%)`; g.fillRect(0, 0, 320, 240); g.fillStyle = '#000'; g.fillText(String(n), 10 + (n % 200), 120); }, 33);
  const track = cv.captureStream(30).getVideoTracks()[0];
  return { track, stop: () => { clearInterval(timer); track.stop(); } };
}

/**
 * Two local peer connections, VP8 video, sender and receiver behind their own WorkerCryptor on `path`; the
 * receiver gets the sender's key only when `shareKey`. Returns the receiver's counts after ~2.5 s.
 */
async function loopback(path, shareKey) {
  const tx = new WorkerCryptor({ path });
  const rx = new WorkerCryptor({ path });
  const pc1 = new RTCPeerConnection(tx.pcConfig());
  const pc2 = new RTCPeerConnection(rx.pcConfig());
  const src = canvasTrack();
  try {
    pc1.onicecandidate = (e) => e.candidate && pc2.addIceCandidate(e.candidate);
    pc2.onicecandidate = (e) => e.candidate && pc1.addIceCandidate(e.candidate);
    const t = pc1.addTransceiver(src.track, { direction: 'sendonly' });
    const vp8 = RTCRtpReceiver.getCapabilities('video')?.codecs.filter((c) => c.mimeType === 'video/VP8') || [];
    t.setCodecPreferences(vp8);
    tx.attach(pc1);
    const base = rand(16);
    await tx.setKey(4242, base, 'tx', 1);
    await tx.setSendKey(4242);
    if (shareKey) await rx.setKey(4242, base, 'tx', 1);
    pc2.ontrack = () => {};
    await pc1.setLocalDescription(await pc1.createOffer());
    await pc2.setRemoteDescription(/** @type {RTCSessionDescriptionInit} */ (pc1.localDescription));
    rx.attach(pc2);
    await pc2.setLocalDescription(await pc2.createAnswer());
    await pc1.setRemoteDescription(/** @type {RTCSessionDescriptionInit} */ (pc2.localDescription));
    // until enough has flowed (a loaded machine encodes slowly), at most 15 s
    let decoded = 0; let packets = 0;
    for (const until = performance.now() + 15000; performance.now() < until;) {
      await new Promise((r) => setTimeout(r, 500));
      decoded = 0; packets = 0;
      (await pc2.getStats()).forEach((s) => { if (s.type === 'inbound-rtp' && s.kind === 'video') { decoded += s.framesDecoded || 0; packets += s.packetsReceived || 0; } });
      if ((tx.latest.stats.encrypted || 0) > 20 && packets > 60 && (!shareKey || decoded > 20)) break;
    }
    await new Promise((r) => setTimeout(r, 300)); // the worker's next counts
    return { decoded, packets, tx: tx.latest.stats, rx: rx.latest.stats };
  } finally {
    src.stop(); pc1.close(); pc2.close(); tx.close(); rx.close();
  }
}

test('browser path: this Chromium has RTCRtpScriptTransform, and it is the one the SDK picks', () => {
  eq(transformPath(), 'script-transform');
});

for (const path of /** @type {const} */ (['script-transform', 'encoded-streams'])) {
  test(`browser path ${path}: encrypted VP8 decodes with the key and not without it`, async () => {
    const withKey = await loopback(path, true);
    ok(withKey.tx.encrypted > 10, `frames encrypted in the worker: ${JSON.stringify(withKey)}`);
    ok(withKey.decoded > 10, `decoded with the key: ${JSON.stringify(withKey)}`);
    const without = await loopback(path, false);
    ok(without.packets > 50, `packets still arrive: ${JSON.stringify(without)}`);
    eq(without.decoded, 0, `no frame decoded without the key: ${JSON.stringify(without)}`);
    ok(without.rx.noKey > 10, 'each dropped frame counted');
  });
}

export async function runAll() { return run(registered(), 45000); }
