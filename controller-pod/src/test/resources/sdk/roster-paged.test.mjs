// node --test: the SDK's paged roster (state.js, signaling.js): a `roster_summary` keeps the control cursor like a
// delta, folds the watched changes into the roster and sets the counts; a counts-only summary moves no cursor; a
// paged client names its page in `join`/`resume`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

const sdk = (f) => pathToFileURL(`${process.env.PARLEY_SDK_DIR}/${f}`).href;
const { initialState, applyEvent, applyRosterSummary, applySnapshot } = await import(sdk('state.js'));
const { SignalingClient } = await import(sdk('signaling.js'));

const A = 'aaaaaaaa-0000-4000-8000-000000000001';
const B = 'bbbbbbbb-0000-4000-8000-000000000002';
const H = 'dddddddd-0000-4000-8000-00000000000d';
const SELF = 'ffffffff-0000-4000-8000-00000000000f';

function withSelf() {
  const s = initialState();
  return { ...s, self: { ...s.self, participant_id: SELF } };
}

test('a summary sets the counts, turns the roster paged and applies only the changes it carries', () => {
  const s0 = applyEvent(withSelf(), { type: 'participant_joined', participant_id: A, display_name: 'Ari', participant_version: 1 }).state;
  assert.equal(s0.roster.paged, false);
  const { state, events } = applyRosterSummary(s0, { type: 'roster_summary', after: '2.5', cursor: '2.40', count: 812, waiting: 3,
    by_role: { host: 1, attendee: 811 }, changes: [{ participant_id: A, op: 'remove', fields: { reason: 'left' } }] });
  assert.equal(state.roster.paged, true);
  assert.equal(state.roster.count, 812);
  assert.equal(state.roster.waiting, 3);
  assert.deepEqual(state.roster.byRole, { host: 1, attendee: 811 });
  assert.deepEqual(Object.keys(state.participants), []);
  assert.deepEqual(events.map((e) => e.type), ['participant_left']);
  const countsOnly = applyRosterSummary(state, { type: 'roster_summary', count: 813, waiting: 0, by_role: { host: 1, attendee: 812 } });
  assert.equal(countsOnly.state.roster.count, 813);
  assert.deepEqual(countsOnly.events, []);
  const junk = applyRosterSummary(state, { type: 'roster_summary', count: 'x', by_role: null, changes: 'no' });
  assert.equal(junk.state.roster.count, 812, 'a count that is no number keeps the last one');
});

test('a snapshot of a paged roster is the page plus the hosts we knew', () => {
  let s = applyEvent(withSelf(), { type: 'participant_joined', participant_id: H, display_name: 'Host', role: 'host', participant_version: 1 }).state;
  s = applyEvent(s, { type: 'participant_joined', participant_id: B, display_name: 'Bo', participant_version: 1 }).state;
  s = { ...s, roster: { ...s.roster, paged: true } };
  const next = applySnapshot(s, { control_cursor: '2.9' }, { participants: [{ participant_id: A, display_name: 'Ari', admission_state: 'admitted' }] });
  assert.deepEqual(Object.keys(next.participants).sort(), [A, H]);
});

class FakeSocket {
  static last = null;
  constructor(url) { this.url = url; this.readyState = 1; this.sent = []; FakeSocket.last = this; queueMicrotask(() => this.onopen?.()); }
  send(t) { this.sent.push(JSON.parse(t)); }
  close() { this.readyState = 3; }
  serve(msg) { this.onmessage({ data: JSON.stringify(msg) }); }
}

test('signaling: summaries keep the cursor chain like deltas; counts-only ones move nothing; the page rides on join and resume', async () => {
  const summaries = [];
  const events = [];
  let resyncs = 0;
  let page = null;
  const c = new SignalingClient({
    getTicket: async () => ({ url: 'ws://127.0.0.1/v1/connect', ticket: 't' }),
    onMessage: () => {}, onState: () => {},
    onEvent: (ev, cursor) => events.push([ev.type, cursor]),
    onRosterSummary: (m) => summaries.push(m.cursor ?? 'counts'),
    onResync: async () => { resyncs++; return '1.50'; },
    rosterPage: () => page,
    WebSocketImpl: FakeSocket, pingIntervalMs: 60000,
  });
  await c.connect();
  await new Promise((r) => setTimeout(r, 0));
  let ws = FakeSocket.last;
  assert.deepEqual(ws.sent[0], { type: 'join', connect_ticket: 't' }, 'not paged: a plain join');
  ws.serve({ type: 'joined', cursor: '1.5', roster: { paged: true, page_above: 100, count: 400 } });
  ws.serve({ type: 'roster_summary', count: 400, waiting: 0, by_role: {} });
  ws.serve({ type: 'roster_summary', after: '1.5', cursor: '1.20', count: 415, waiting: 0, by_role: {} });
  ws.serve({ type: 'event', cursor: '1.21', event: { type: 'mute_all' } });
  ws.serve({ type: 'roster_summary', after: '1.21', cursor: '1.30', count: 420, waiting: 0, by_role: {} });
  assert.deepEqual(summaries, ['counts', '1.20', '1.30']);
  assert.deepEqual(events, [['mute_all', '1.21']]);
  assert.equal(c.cursor.value, '1.30');
  ws.serve({ type: 'roster_summary', after: '1.35', cursor: '1.40', count: 420, waiting: 0, by_role: {} });
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(resyncs, 1, 'a summary after a hole takes a snapshot first');
  page = { participant_ids: [A] };
  c.drop();
  await new Promise((r) => setTimeout(r, 400));
  ws = FakeSocket.last;
  assert.deepEqual(ws.sent[0], { type: 'resume', connect_ticket: 't', resume_after: c.cursor.value, roster_page: { participant_ids: [A] } });
  c.close();
});
