// node --test: the SDK's join-timeline.js — first mark wins, steps come out in order relative to `admitted`,
// ICE/DTLS come from the peer connection's events and the last steps from its inbound video stats.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

const { JoinTimeline, JOIN_STEPS, formatTimeline } = await import(pathToFileURL(`${process.env.PARLEY_SDK_DIR}/join-timeline.js`).href);

/** A stand-in for the browser's RTCPeerConnection: states set by the test, stats read from `video`. */
class BrowserPc extends EventTarget {
  constructor() { super(); this.iceConnectionState = 'new'; this.connectionState = 'new'; this.video = null; }
  set(ice, conn) {
    this.iceConnectionState = ice; this.dispatchEvent(new Event('iceconnectionstatechange'));
    this.connectionState = conn; this.dispatchEvent(new Event('connectionstatechange'));
  }
  async getStats() { return new Map(this.video ? [['v', { type: 'inbound-rtp', kind: 'video', ...this.video }]] : []); }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('a join is complete, ordered and totals admitted → first decoded frame', async () => {
  let clock = 1000;
  let done = null;
  const t = new JoinTimeline({ now: () => clock, onComplete: (s) => { done = s; } });
  const pc = new BrowserPc();
  t.mark('admitted'); clock += 5;
  t.mark('transport_requested'); clock += 40;
  t.mark('transport_answered'); clock += 30;
  t.mark('socket_joined'); clock += 2;
  t.watch(pc);
  t.mark('offer_sent'); clock += 20;
  t.mark('offer_sent');                           // a renegotiation later: the first one counts
  t.mark('answer_received'); clock += 10;
  pc.set('connected', 'connecting'); clock += 25;
  pc.set('connected', 'connected'); clock += 5;
  pc.video = { packetsReceived: 3, framesReceived: 0, framesDecoded: 0 };
  await sleep(40); clock += 30;
  pc.video = { packetsReceived: 30, framesReceived: 1, framesDecoded: 0 };
  await sleep(40); clock += 12;
  pc.video = { packetsReceived: 40, framesReceived: 2, framesDecoded: 1, pliCount: 1 };
  await sleep(40);
  assert.ok(done, 'onComplete ran');
  assert.equal(done.complete, true);
  assert.deepEqual(done.steps.map((s) => s.step), JOIN_STEPS);
  const at = Object.fromEntries(done.steps.map((s) => [s.step, s.atMs]));
  assert.equal(at.admitted, 0);
  assert.equal(at.transport_answered, 45);
  assert.equal(at.offer_sent, 77);
  assert.equal(at.ice_connected, 107);
  assert.equal(at.dtls_connected, 132);
  assert.equal(at.first_rtp, 137);
  assert.equal(at.first_frame, 167);
  assert.equal(done.totalMs, 179);
  for (let i = 1; i < done.steps.length; i++) assert.ok(done.steps[i].deltaMs >= 0, `${done.steps[i].step} after the one before`);
  assert.equal(done.keyframeRequests.pliCount, 1);
  assert.match(formatTimeline(done), /^total 179 ms: transport_requested \+5 .* first_decoded \+12 \(pli 1\)$/);
});

test('without a decoded frame the timeline stays incomplete, and stop() ends the poll', async () => {
  const t = new JoinTimeline();
  const pc = new BrowserPc();
  t.mark('admitted');
  t.watch(pc);
  pc.video = { packetsReceived: 5, framesReceived: 0, framesDecoded: 0 };
  await sleep(50);
  const s = t.summary();
  assert.equal(s.complete, false);
  assert.equal(s.totalMs, null);
  assert.notEqual(s.steps.find((x) => x.step === 'first_rtp').atMs, null);
  t.stop();
  assert.equal(t.pollTimer, null);
});

test('marks that are not steps land in extra, relative to admitted', () => {
  let clock = 0;
  const t = new JoinTimeline({ now: () => clock });
  t.mark('admitted'); clock = 7;
  t.mark('publish_offer_sent');
  assert.deepEqual(t.summary().extra, { publish_offer_sent: 7 });
});

test('a stats snapshot is timed by its own timestamp when it is on the page clock, else by now', async () => {
  const { statsTime } = await import(pathToFileURL(`${process.env.PARLEY_SDK_DIR}/join-timeline.js`).href);
  const origin = performance.timeOrigin;
  // a page that has been up 5 s (a node process just started is younger than the 400 ms below)
  const now = 5000;
  assert.ok(Math.abs(statsTime(origin + now - 400, now) - (now - 400)) < 0.01, 'taken 400 ms before getStats resolved');
  assert.equal(statsTime(undefined, now), now);
  assert.equal(statsTime(now - 400, now), now, 'not epoch ms: not trusted');
  assert.equal(statsTime(origin + now + 10_000, now), now, 'in the future: not trusted');
});

test('a new generation during the join hands the watch over to its subscribe connection', async () => {
  const t = new JoinTimeline();
  const first = new BrowserPc(), second = new BrowserPc();
  t.mark('admitted');
  t.watch(first);
  t.watch(second);
  first.video = { packetsReceived: 9, framesReceived: 3, framesDecoded: 3 };   // the old one is no longer read
  await sleep(50);
  assert.equal(t.summary().totalMs, null);
  second.video = { packetsReceived: 9, framesReceived: 1, framesDecoded: 1 };
  await sleep(50);
  assert.notEqual(t.summary().totalMs, null);
});
