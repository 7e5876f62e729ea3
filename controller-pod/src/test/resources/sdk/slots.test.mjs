// node --test: the SDK's slots.js — how many recvonly slots to offer, and applying slot maps that move a slot
// to another speaker (top-N audio: the SFU's slot_assignments event).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

const { slotsNeeded, mapSlots, diffSlots } = await import(pathToFileURL(`${process.env.PARLEY_SDK_DIR}/slots.js`).href);

test('without a top-N the client offers one audio slot per remote participant (rounded up to 4)', () => {
  assert.deepEqual(slotsNeeded(0), { audio: 4, video: 4 });
  assert.deepEqual(slotsNeeded(30), { audio: 32, video: 16 });
  assert.deepEqual(slotsNeeded(30, undefined, undefined, null), { audio: 32, video: 16 });
});

test('with the meeting\'s audio_top_n the client offers exactly N audio slots, whatever the roster', () => {
  assert.deepEqual(slotsNeeded(0, undefined, undefined, 3), { audio: 3, video: 4 });
  assert.deepEqual(slotsNeeded(999, undefined, undefined, 2), { audio: 2, video: 16 });
  assert.deepEqual(slotsNeeded(5, undefined, undefined, 0), { audio: 8, video: 8 }, 'not a top-N: as before');
  assert.deepEqual(slotsNeeded(5, undefined, undefined, 2.5), { audio: 8, video: 8 }, 'not an integer: as before');
});

test('a slot moving to another speaker removes the old speaker\'s ref and adds the new one on the same mid', () => {
  const kinds = { 0: 'audio', 1: 'audio' };
  const before = mapSlots([{ mid: '0', participant_id: 'a', track_id: 'a:0', kind: 'audio' },
    { mid: '1', participant_id: 'b', track_id: 'b:0', kind: 'audio' }], kinds);
  const after = mapSlots([{ mid: '0', participant_id: 'a', track_id: 'a:0', kind: 'audio' },
    { mid: '1', participant_id: 'd', track_id: 'd:0', kind: 'audio' }], kinds);
  const { added, removed } = diffSlots(before, after);
  assert.deepEqual(removed.map((r) => [r.mid, r.participantId]), [['1', 'b']]);
  assert.deepEqual(added.map((r) => [r.mid, r.participantId, r.source]), [['1', 'd', 'microphone']]);
});
