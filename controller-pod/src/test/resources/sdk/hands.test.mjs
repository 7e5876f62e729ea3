// node --test: large meetings in the SDK's state (hands.js through state.js): the raise-hand queue from the
// snapshot and from hand_raised / hand_lowered events, first raised first and one entry per participant; our own
// hand; speak_allowed tells the user without turning anything on; the policy from the snapshot and its event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

const sdk = (f) => pathToFileURL(`${process.env.PARLEY_SDK_DIR}/${f}`).href;
const { initialState, applyEvent, applySnapshot } = await import(sdk('state.js'));
const { sortHands } = await import(sdk('hands.js'));
const { eventsFromControl } = await import(sdk('events.js'));

const A = 'aaaaaaaa-0000-4000-8000-000000000001';
const B = 'bbbbbbbb-0000-4000-8000-000000000002';
const SELF = 'ffffffff-0000-4000-8000-00000000000f';

function withSelf() {
  const s = initialState();
  return { ...s, self: { ...s.self, participant_id: SELF } };
}

const fold = (s, evs) => evs.reduce((st, ev) => applyEvent(st, ev).state, s);

test('the queue is ordered by time raised, then participant id, with one entry per participant', () => {
  let s = fold(withSelf(), [
    { type: 'hand_raised', participant_id: B, display_name: 'Bo', raised_at: '2026-12-07T10:00:02Z' },
    { type: 'hand_raised', participant_id: SELF, display_name: 'Me', raised_at: '2026-12-07T10:00:03Z' },
    { type: 'hand_raised', participant_id: A, display_name: 'Ari', raised_at: '2026-12-07T10:00:01Z' },
    { type: 'hand_raised', participant_id: A, display_name: 'Ari', raised_at: '2026-12-07T10:00:01Z' },
  ]);
  assert.deepEqual(s.raisedHands.map((h) => h.participant_id), [A, B, SELF]);
  assert.equal(s.self.handRaised, true);
  s = fold(s, [{ type: 'hand_lowered', participant_id: A, reason: 'allowed_to_speak' }, { type: 'hand_lowered', participant_id: SELF, reason: 'lowered' }]);
  assert.deepEqual(s.raisedHands.map((h) => h.participant_id), [B]);
  assert.equal(s.self.handRaised, false);
  assert.deepEqual(sortHands([{ participant_id: B, raised_at: 'x' }, { participant_id: A, raised_at: 'x' }]).map((h) => h.participant_id), [A, B],
    'equal times: by participant id');
});

test('the snapshot replaces the queue and gives our own hand, the policy and joined_muted', () => {
  const start = fold(withSelf(), [{ type: 'hand_raised', participant_id: A, raised_at: '2026-12-07T10:00:01Z' }]);
  const s = applySnapshot(start, { control_cursor: '4.2', large_meeting_size: 50, unmute_policy: 'hosts_and_presenters',
    raised_hands: [{ participant_id: B, display_name: 'Bo', raised_at: '2026-12-07T10:00:05Z' }, { participant_id: SELF, display_name: 'Me', raised_at: '2026-12-07T10:00:04Z' }],
    self: { participant_id: SELF, admission_state: 'admitted', hand_raised: true, speak_allowed: false, joined_muted: true } });
  assert.deepEqual(s.raisedHands.map((h) => h.participant_id), [SELF, B]);
  assert.equal(s.self.handRaised, true);
  assert.equal(s.self.joinedMuted, true);
  assert.deepEqual(s.policy, { largeMeetingSize: 50, unmutePolicy: 'hosts_and_presenters' });
  const off = applyEvent(s, { type: 'meeting_policy_changed', large_meeting_size: null, unmute_policy: 'everyone' }).state;
  assert.deepEqual(off.policy, { largeMeetingSize: null, unmutePolicy: 'everyone' });
});

test('speak_allowed is an effect for us only and turns nothing on', () => {
  const s = withSelf();
  const mine = applyEvent(s, { type: 'speak_allowed', participant_id: SELF, allowed: true });
  assert.deepEqual(mine.effects, [{ type: 'speak_allowed', allowed: true }]);
  assert.equal(mine.state.self.speakAllowed, true);
  assert.equal(mine.state.self.mic.on, false);
  const theirs = applyEvent(s, { type: 'speak_allowed', participant_id: A, allowed: true });
  assert.deepEqual(theirs.effects, []);
  const lowered = applyEvent(s, { type: 'hand_lowered', participant_id: SELF, reason: 'lowered_by_moderator' });
  assert.deepEqual(lowered.effects, [{ type: 'hand_lowered_by_moderator' }]);
});

test('hand events become typed events', () => {
  const up = eventsFromControl({ type: 'hand_raised', participant_id: A, display_name: 'Ari', raised_at: 't' }, '4.3');
  assert.deepEqual(up[1], ['hand_raised', { participantId: A, displayName: 'Ari', raisedAt: 't', event: up[0][1].event }]);
  const down = eventsFromControl({ type: 'hand_lowered', participant_id: A, reason: 'lowered' }, '4.4');
  assert.equal(down[1][0], 'hand_lowered');
  assert.equal(down[1][1].reason, 'lowered');
});
