// node --test: media.js answers a `lease_in_doubt` refusal by sending the same offer again (no new generation).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

const { MediaSession } = await import(pathToFileURL(`${process.env.PARLEY_SDK_DIR}/media.js`).href);

function session(sent) {
  const m = new MediaSession({ send: (msg) => { sent.push(msg); return true; } });
  m.sub = /** @type {any} */ ({ localDescription: { sdp: 'v=0 sub' } });
  m.pub = /** @type {any} */ ({ localDescription: { sdp: 'v=0 pub' } });
  return m;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('lease_in_doubt on a pending offer: the same offer goes again after the pause, nothing else', async () => {
  const sent = [];
  const m = session(sent);
  m.pendingAnswers.set('subscribe', { resolve() {}, reject() {}, timer: null });
  const handled = m.handleMessage({ type: 'error', code: 'lease_in_doubt', transport: 'subscribe', retry_after_ms: 100 });
  assert.equal(handled, true, 'handled by the media session, not turned into a new generation');
  assert.equal(sent.length, 0, 'not at once');
  await sleep(250);
  assert.deepEqual(sent, [{ type: 'offer', transport: 'subscribe', sdp: 'v=0 sub', slot_deltas: true }]);
});

test('no retry once the answer came, the session closed, or for other errors', async () => {
  const sent = [];
  const m = session(sent);
  m.handleMessage({ type: 'error', code: 'lease_in_doubt', transport: 'subscribe', retry_after_ms: 100 });
  assert.equal(m.handleMessage({ type: 'error', code: 'not_authorized' }), false, 'other errors go to the client');
  const closed = session(sent);
  closed.pendingAnswers.set('publish', { resolve() {}, reject() {}, timer: null });
  closed.handleMessage({ type: 'error', code: 'lease_in_doubt', transport: 'publish', retry_after_ms: 100 });
  closed.closed = true;
  await sleep(250);
  assert.deepEqual(sent, []);
});
