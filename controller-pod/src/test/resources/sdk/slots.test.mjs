// node --test: the SDK's slots.js — how many recvonly slots to offer, and applying slot maps that move a slot
// to another speaker (top-N audio: the SFU's slot_assignments event).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

const { slotsNeeded, mapSlots, diffSlots, deltaFits, wholeMapFits, applySlotDelta } = await import(pathToFileURL(`${process.env.PARLEY_SDK_DIR}/slots.js`).href);
const { MediaSession } = await import(pathToFileURL(`${process.env.PARLEY_SDK_DIR}/media.js`).href);

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

test('a slot_delta applies only on the map it was made from; an older one is stale, a skipped one a gap', () => {
  assert.equal(deltaFits(10, { base: 10, version: 11 }), 'apply');
  assert.equal(deltaFits(11, { base: 10, version: 11 }), 'stale', 'a whole map at 11 came first');
  assert.equal(deltaFits(15, { base: 10, version: 11 }), 'stale');
  assert.equal(deltaFits(10, { base: 11, version: 12 }), 'gap', '11 was lost');
  assert.equal(deltaFits(null, { base: 10, version: 11 }), 'gap', 'no map yet');
  assert.equal(deltaFits(10, { version: 11 }), 'gap', 'malformed: ask for the whole map');
  assert.equal(wholeMapFits(12, 11), false, 'an answer older than a delta we applied');
  assert.equal(wholeMapFits(12, 12), true);
  assert.equal(wholeMapFits(12, undefined), true, 'an older server: no versions');
  assert.equal(wholeMapFits(null, 3), true);
});

test('applying a delta moves, fills and empties only the named slots', () => {
  const before = [{ mid: '0', participant_id: 'a', track_id: 'a:0', kind: 'audio' },
    { mid: '1', participant_id: 'b', track_id: 'b:0', kind: 'audio' },
    { mid: '5', participant_id: 'c', track_id: 'c:1', kind: 'video' }];
  const after = applySlotDelta(before, [{ mid: '1', participant_id: 'd', track_id: 'd:0', kind: 'audio', source: 'microphone' },
    { mid: '0', participant_id: null }, { mid: '2', participant_id: 'e', track_id: 'e:0', kind: 'audio' }]);
  assert.deepEqual(after.map((a) => [a.mid, a.participant_id]).sort(), [['1', 'd'], ['2', 'e'], ['5', 'c']]);
  assert.deepEqual(before.length, 3, 'the old list is not changed');
  assert.deepEqual(applySlotDelta(null, [{ mid: '0', participant_id: 'a', track_id: 'a:0' }]).map((a) => a.mid), ['0']);
});

/** A MediaSession with a stand-in subscribe connection of three audio mids (no WebRTC in node). */
function session(sent, events) {
  const m = new MediaSession({ send: (msg) => { sent.push(msg); return true; },
    onRemoteTrack: (ref) => events.push(`+${ref.mid}=${ref.participantId}`), onRemoteTrackRemoved: (ref) => events.push(`-${ref.mid}=${ref.participantId}`) });
  const tr = (mid) => ({ mid, receiver: { track: { kind: 'audio' } } });
  m.sub = /** @type {any} */ ({ getTransceivers: () => [tr('0'), tr('1'), tr('2')] });
  return m;
}

test('media: deltas chain on the answer\'s slot_version; a gap asks for the whole map, which heals it', () => {
  const sent = [];
  const ev = [];
  const m = session(sent, ev);
  m.handleMessage({ type: 'subscribed', slot_version: 100, slot_assignments: [{ mid: '0', participant_id: 'a', track_id: 'a:0', kind: 'audio' }] });
  assert.deepEqual(ev.splice(0), ['+0=a']);
  m.applySlotDelta({ type: 'slot_delta', base: 100, version: 101, changes: [{ mid: '1', participant_id: 'b', track_id: 'b:0', kind: 'audio' }] });
  assert.deepEqual(ev.splice(0), ['+1=b']);
  m.applySlotDelta({ type: 'slot_delta', base: 101, version: 102, changes: [{ mid: '0', participant_id: null }] });
  assert.deepEqual(ev.splice(0), ['-0=a']);
  assert.equal(m.slotVersion, 102);
  assert.deepEqual(sent, [], 'no request while the chain holds');

  m.applySlotDelta({ type: 'slot_delta', base: 103, version: 104, changes: [{ mid: '2', participant_id: 'c', track_id: 'c:0', kind: 'audio' }] });
  assert.deepEqual(ev, [], '103 was lost: 104 is not applied on a map that lacks it');
  assert.deepEqual(sent, [{ type: 'subscribe', tracks: [] }], 'the whole map is asked for');
  m.applySlotDelta({ type: 'slot_delta', base: 104, version: 105, changes: [] });
  assert.equal(sent.length, 1, 'one request at a time');

  m.handleMessage({ type: 'subscribed', slot_version: 105, slot_assignments: [{ mid: '1', participant_id: 'b', track_id: 'b:0', kind: 'audio' },
    { mid: '2', participant_id: 'c', track_id: 'c:0', kind: 'audio' }] });
  assert.deepEqual(ev.splice(0), ['+2=c']);
  m.applySlotDelta({ type: 'slot_delta', base: 104, version: 105, changes: [{ mid: '2', participant_id: null }] });
  assert.deepEqual(ev, [], 'a delta the whole map already holds is stale');
  m.handleMessage({ type: 'subscribed', slot_version: 103, slot_assignments: [] });
  assert.deepEqual(ev, [], 'a whole map older than ours is not applied');
  m.applySlotDelta({ type: 'slot_delta', base: 105, version: 106, changes: [{ mid: '0', participant_id: 'd', track_id: 'd:0', kind: 'audio' }] });
  assert.deepEqual(ev.splice(0), ['+0=d']);
});
