// node --test: the SDK's handling of `roster_delta` (state.js, cursor.js, signaling.js): a batch of joins and
// departures folds into the roster like its events one by one, keeps the control cursor, and a gap resyncs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

const sdk = (f) => pathToFileURL(`${process.env.PARLEY_SDK_DIR}/${f}`).href;
const { initialState, applyEvent, applyRosterDelta, rosterDeltaEvents } = await import(sdk('state.js'));
const { CursorTracker } = await import(sdk('cursor.js'));
const { SignalingClient } = await import(sdk('signaling.js'));

const A = 'aaaaaaaa-0000-4000-8000-000000000001';
const B = 'bbbbbbbb-0000-4000-8000-000000000002';
const C = 'cccccccc-0000-4000-8000-000000000003';
const SELF = 'ffffffff-0000-4000-8000-00000000000f';

function withSelf() {
  const s = initialState();
  return { ...s, self: { ...s.self, participant_id: SELF } };
}

test('a delta equals its events one by one: joins with defaults filled in, a departure, a rejoin', () => {
  const delta = { type: 'roster_delta', after: '3.10', cursor: '3.14', changes: [
    { participant_id: A, op: 'replace', fields: { display_name: 'Ari', participant_version: '1' } },
    { participant_id: B, op: 'replace', fields: { display_name: 'Bo', participant_version: '4', role: 'cohost', publish: 'audio' } },
    { participant_id: C, op: 'remove', fields: { reason: 'left' } },
  ] };
  const start = applyEvent(withSelf(), { type: 'participant_joined', participant_id: C, display_name: 'Cy', participant_version: 1 }).state;
  const { state, events } = applyRosterDelta(start, delta);
  // the same events sent one at a time give the same roster
  let one = start;
  for (const ev of [
    { type: 'participant_joined', participant_id: A, display_name: 'Ari', role: 'attendee', admission_state: 'admitted', participant_version: 1, publish: { audio: true, video: true, screen: true } },
    { type: 'participant_joined', participant_id: B, display_name: 'Bo', role: 'cohost', admission_state: 'admitted', participant_version: 4, publish: { audio: true, video: false, screen: false } },
    { type: 'participant_left', participant_id: C, reason: 'left' },
  ]) one = applyEvent(one, ev).state;
  assert.deepEqual(state.participants, one.participants);
  assert.deepEqual(Object.keys(state.participants).sort(), [A, B]);
  assert.equal(state.participants[A].role, 'attendee');
  assert.deepEqual(state.participants[A].publish, { audio: true, video: true, screen: true });
  assert.equal(state.participants[B].role, 'cohost');
  assert.deepEqual(state.participants[B].publish, { audio: true, video: false, screen: false });
  assert.equal(state.participants[B].version, 4);
  assert.deepEqual(events.map((e) => e.type), ['participant_joined', 'participant_joined', 'participant_left']);
});

test('a stale replace (older version than we hold) changes nothing; malformed changes are skipped', () => {
  const s0 = applyEvent(withSelf(), { type: 'participant_joined', participant_id: A, display_name: 'New', participant_version: 7 }).state;
  const { state } = applyRosterDelta(s0, { type: 'roster_delta', after: '1.1', cursor: '1.3', changes: [
    { participant_id: A, op: 'replace', fields: { display_name: 'Old', participant_version: '5' } },
    { op: 'replace', fields: { display_name: 'no id' } }, null, { participant_id: B, op: 'explode' },
  ] });
  assert.equal(state.participants[A].display_name, 'New');
  assert.deepEqual(Object.keys(state.participants), [A]);
  assert.deepEqual(rosterDeltaEvents({ changes: 'nope' }), []);
});

test('our own removal in a delta is our departure (admission and effects as for the event)', () => {
  const s0 = { ...withSelf(), admission: 'admitted' };
  const viaDelta = applyRosterDelta(s0, { type: 'roster_delta', after: '1.1', cursor: '1.2', changes: [
    { participant_id: SELF, op: 'remove', fields: { reason: 'meeting_ended' } }] });
  const viaEvent = applyEvent(s0, { type: 'participant_left', participant_id: SELF, reason: 'meeting_ended' });
  assert.equal(viaDelta.state.admission, viaEvent.state.admission);
  assert.equal(viaDelta.state.admission, 'ended');
  assert.deepEqual(viaDelta.effects, viaEvent.effects);
});

test('cursor: a range applies from its start (or inside it), is a duplicate at or past its end, a gap after a hole', () => {
  const t = new CursorTracker('2.10');
  assert.equal(t.offerRange('2.11', '2.15'), 'gap');
  assert.equal(t.value, '2.10');
  assert.equal(t.offerRange('2.10', '2.15'), 'apply');
  assert.equal(t.value, '2.15');
  assert.equal(t.offerRange('2.12', '2.15'), 'duplicate');
  assert.equal(t.offer('2.16'), 'apply');
  assert.equal(t.offerRange('2.14', '2.20'), 'apply', 'overlapping: its changes are states, applying again is harmless');
  assert.equal(t.value, '2.20');
  assert.equal(t.offerRange('3.0', '3.4'), 'epoch_changed');
  assert.equal(t.offerRange('2.20', 'x'), 'invalid');
  assert.equal(t.offerRange('2.25', '2.21'), 'invalid');
  assert.equal(t.value, '2.20');
});

/** A socket the test drives: the client's messages are recorded, the server's are pushed with `serve`. */
class FakeSocket {
  static last = null;
  constructor(url) { this.url = url; this.readyState = 1; this.sent = []; FakeSocket.last = this; queueMicrotask(() => this.onopen?.()); }
  send(t) { this.sent.push(JSON.parse(t)); }
  close() { this.readyState = 3; }
  serve(msg) { this.onmessage({ data: JSON.stringify(msg) }); }
}

test('signaling: a delta in order reaches onRosterDelta and moves the cursor; one after a hole takes a snapshot first', async () => {
  const deltas = [];
  const events = [];
  let resyncs = 0;
  const c = new SignalingClient({
    getTicket: async () => ({ url: 'ws://127.0.0.1/v1/connect', ticket: 't' }),
    onMessage: () => {}, onState: () => {},
    onEvent: (ev, cursor) => events.push([ev.type, cursor]),
    onRosterDelta: (m) => deltas.push(m.cursor),
    onResync: async () => { resyncs++; return '1.30'; },
    WebSocketImpl: FakeSocket, pingIntervalMs: 60000,
  });
  await c.connect();
  await new Promise((r) => setTimeout(r, 0));
  const ws = FakeSocket.last;
  assert.deepEqual(ws.sent[0], { type: 'join', connect_ticket: 't' });
  ws.serve({ type: 'joined', cursor: '1.5' });
  ws.serve({ type: 'roster_delta', after: '1.5', cursor: '1.9', changes: [{ participant_id: A, op: 'replace', fields: { display_name: 'A', participant_version: '1' } }] });
  ws.serve({ type: 'event', cursor: '1.10', event: { type: 'mute_all' } });
  assert.deepEqual(deltas, ['1.9']);
  assert.deepEqual(events, [['mute_all', '1.10']]);
  assert.equal(c.cursor.value, '1.10');
  // a delta starting beyond our cursor: something was missed → snapshot, then the buffered delta on top of it
  ws.serve({ type: 'roster_delta', after: '1.20', cursor: '1.40', changes: [{ participant_id: B, op: 'remove' }] });
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(resyncs, 1);
  assert.deepEqual(deltas, ['1.9', '1.40']);
  assert.equal(c.cursor.value, '1.40');
  c.close();
});

test('signaling without onRosterDelta: the delta arrives as its events, each with the delta cursor', async () => {
  const events = [];
  const c = new SignalingClient({
    getTicket: async () => ({ url: 'ws://127.0.0.1/v1/connect', ticket: 't' }),
    onMessage: () => {}, onState: () => {}, onResync: async () => null,
    onEvent: (ev, cursor) => events.push([ev.type, ev.participant_id, cursor]),
    WebSocketImpl: FakeSocket, pingIntervalMs: 60000,
  });
  await c.connect();
  await new Promise((r) => setTimeout(r, 0));
  FakeSocket.last.serve({ type: 'joined', cursor: '4.1' });
  FakeSocket.last.serve({ type: 'roster_delta', after: '4.1', cursor: '4.3', changes: [
    { participant_id: A, op: 'replace', fields: { display_name: 'A', participant_version: '2' } }, { participant_id: B, op: 'remove' }] });
  assert.deepEqual(events, [['participant_joined', A, '4.3'], ['participant_left', B, '4.3']]);
  c.close();
});
