// node --test: the SDK's events.js (emitter + typed events derived from control events and state changes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

const { Emitter, eventsFromControl, eventsFromState, commandOutcome } =
  await import(pathToFileURL(`${process.env.PARLEY_SDK_DIR}/events.js`).href);

test('handlers run in order; one that throws is reported and the others still run', () => {
  const errors = [];
  const e = new Emitter({ onError: (err, type) => errors.push([type, err.message]) });
  const seen = [];
  e.on('x', (p) => seen.push(['a', p]));
  e.on('x', () => { throw new Error('boom'); });
  e.on('x', (p) => seen.push(['c', p]));
  e.emit('x', 1);
  assert.deepEqual(seen, [['a', 1], ['c', 1]]);
  assert.deepEqual(errors, [['x', 'boom']]);
});

test('on returns an unsubscribe; off and once remove; emits without handlers are no-ops', () => {
  const e = new Emitter();
  const seen = [];
  const h = (p) => seen.push(p);
  const un = e.on('x', h);
  e.once('x', (p) => seen.push(`once ${p}`));
  e.emit('x', 1);
  e.emit('x', 2);
  un();
  e.emit('x', 3);
  e.emit('nobody', 4);
  assert.deepEqual(seen, [1, 'once 1', 2]);
  assert.equal(e.listenerCount('x'), 0);
  e.on('y', h); e.off('y', h); e.off('y', h);
  assert.equal(e.listenerCount('y'), 0);
  assert.throws(() => e.on('x', 'not a function'), TypeError);
});

test('a handler added during an emit runs from the next emit on; one removed during it still runs this time', () => {
  const e = new Emitter();
  const seen = [];
  const late = () => seen.push('late');
  let second;
  e.on('x', () => { seen.push('first'); e.on('x', late); e.off('x', second); });
  second = () => seen.push('second');
  e.on('x', second);
  e.emit('x');
  e.emit('x');
  assert.deepEqual(seen, ['first', 'second', 'first', 'late']);
});

test('control events: participants flat or under `participant`, reasons, and every event as `event`', () => {
  const joined = { type: 'participant_joined', participant: { participant_id: 7, display_name: 'Ari', role: 'host' } };
  assert.deepEqual(eventsFromControl(joined, '1.4'), [
    ['event', { event: joined, cursor: '1.4' }],
    ['participant_joined', { participantId: '7', displayName: 'Ari', role: 'host', event: joined }],
  ]);
  const removed = { type: 'participant_removed', participant_id: 'p2', reason: 'host' };
  assert.deepEqual(eventsFromControl(removed, '1.5')[1], ['participant_removed', { participantId: 'p2', reason: 'host', event: removed }]);
  const speakers = { type: 'active_speakers', speakers: [] };
  assert.deepEqual(eventsFromControl(speakers, null), [['event', { event: speakers, cursor: null }]]);
  assert.equal(eventsFromControl({ type: 'participant_left' }, '1.6').length, 1); // no participant id: nothing to say
});

const base = {
  connection: 'idle', connectionReason: null, admission: 'none', commands: {}, notices: [],
  self: { mic: { on: false, reason: null }, camera: { on: false, reason: null }, screen: { on: false, reason: null } },
};

test('state changes: connection, admission, our own media with the reason', () => {
  const next = { ...base, connection: 'connecting', admission: 'joining',
    self: { ...base.self, mic: { on: false, reason: 'permission_revoked' }, camera: { on: true, reason: null } } };
  assert.deepEqual(eventsFromState(base, next), [
    ['connection_state', { state: 'connecting', previous: 'idle', reason: null }],
    ['admission', { state: 'joining', previous: 'none' }],
    ['media_state', { source: 'microphone', on: false, reason: 'permission_revoked', previous: { on: false, reason: null } }],
    ['media_state', { source: 'camera', on: true, reason: null, previous: { on: false, reason: null } }],
  ]);
  assert.deepEqual(eventsFromState(base, { ...base }), []);
});

test('commands: applied once (pending → applied; not_required when committed), failed once', () => {
  const pending = { ...base, commands: { c1: { type: 'set_publish', participant_id: 'p', state: 'committed', media_enforcement: 'pending' } } };
  assert.deepEqual(eventsFromState(base, pending), []);
  const applied = { ...base, commands: { c1: { ...pending.commands.c1, media_enforcement: 'applied' } } };
  assert.deepEqual(eventsFromState(pending, applied), [['command_applied',
    { commandId: 'c1', type: 'set_publish', participantId: 'p', state: 'committed', mediaEnforcement: 'applied' }]]);
  const again = { ...base, commands: { c1: { ...applied.commands.c1, state: 'applied' } } };
  assert.deepEqual(eventsFromState(applied, again), []);
  const admit = { ...base, commands: { c2: { type: 'admit', state: 'committed', media_enforcement: 'not_required' } } };
  assert.equal(eventsFromState(base, admit)[0][0], 'command_applied');
  const failed = { ...base, commands: { c3: { type: 'lock_meeting', state: 'failed' } } };
  assert.equal(eventsFromState(base, failed)[0][0], 'command_failed');
  assert.equal(commandOutcome(undefined), null);
});

test('notices: only the new ones', () => {
  const one = { ...base, notices: [{ id: 1, level: 'info', code: 'a', text: 'A' }] };
  const two = { ...base, notices: [...one.notices, { id: 2, level: 'error', code: 'b', text: 'B' }] };
  assert.deepEqual(eventsFromState(one, two), [['notice', { level: 'error', code: 'b', text: 'B' }]]);
});
