// In-page tests of the pure-logic parts of parley-client, run in real headless Chromium by
// dev.parley.e2e.web.SdkLogicIT. Every test asserts; a failing assertion fails the JUnit test.

import { test, ok, eq, rejects, waitFor, run, registered, AssertionError } from './minitest.js';
import { backoffDelay, Backoff } from '/sdk/backoff.js';
import { parseProblem, ParleyError, describeCode } from '/sdk/problem.js';
import { ApiClient } from '/sdk/api.js';
import { parseCursor, compareCursor, CursorTracker } from '/sdk/cursor.js';
import { CommandQueue, isNeverReplayed } from '/sdk/command-queue.js';
import { canTransition, initialState, applyEvent, applySnapshot, Store } from '/sdk/state.js';
import { mapSlots, diffSlots, slotsNeeded, deltaFits, applySlotDelta } from '/sdk/slots.js';
import { SignalingClient } from '/sdk/signaling.js';
import { qualityLevel, intervalLossPct, worseQuality } from '/sdk/quality.js';
import { ParleyClient } from '/sdk/parley-client.js';
import { MediaSession, layerChanges, wantsSimulcast } from '/sdk/media.js';

const noSleep = () => Promise.resolve();

// ------------------------------------------------------------------ backoff

test('backoff: full jitter stays within the exponential cap and the max', () => {
  const opts = { baseMs: 100, maxMs: 2000 };
  eq(backoffDelay(0, { ...opts, random: () => 0.999 }), 99, 'attempt 0 cap');
  eq(backoffDelay(3, { ...opts, random: () => 0.999 }), 799, 'attempt 3 cap');
  eq(backoffDelay(10, { ...opts, random: () => 0.999 }), 1998, 'capped by max');
  eq(backoffDelay(60, { ...opts, random: () => 0.5 }), 1000, 'huge attempt does not overflow');
  eq(backoffDelay(2, { ...opts, random: () => 0 }), 0, 'jitter reaches zero');
  eq(backoffDelay(2, { ...opts, minMs: 50, random: () => 0 }), 50, 'min respected');
});

test('backoff: delays are jittered (not lock-step) and grow on average', () => {
  const b = new Backoff({ baseMs: 100, maxMs: 100000 });
  const firsts = new Set();
  for (let i = 0; i < 50; i++) firsts.add(backoffDelay(4, { baseMs: 100, maxMs: 100000 }));
  ok(firsts.size > 25, 'fifty clients pick many different delays, got ' + firsts.size);
  const avg = (a) => { let s = 0; for (let i = 0; i < 400; i++) s += backoffDelay(a, { baseMs: 100, maxMs: 100000 }); return s / 400; };
  ok(avg(5) > avg(1) * 4, 'attempt 5 waits much longer than attempt 1 on average');
  b.next(); b.next();
  eq(b.attempt, 2);
  b.reset();
  eq(b.attempt, 0);
});

// ------------------------------------------------------------------ problems

test('problem: RFC 9457 document gives status, stable code and a human message', () => {
  const e = parseProblem(403, 'application/problem+json', JSON.stringify({ type: 'https://parley.dev/problems/meeting_locked', title: 'Locked', status: 403, code: 'meeting_locked', detail: 'x' }));
  ok(e instanceof ParleyError);
  eq(e.status, 403); eq(e.code, 'meeting_locked');
  eq(e.message, describeCode('meeting_locked'));
  ok(!e.retryable, '403 is final');
  const t = parseProblem(409, 'application/problem+json', JSON.stringify({ type: 'https://parley.dev/problems/version_conflict', status: 409 }));
  eq(t.code, 'version_conflict', 'code from the type URI when no code field');
  const n = parseProblem(502, 'text/html', '<html>bad gateway</html>');
  eq(n.code, 'server_error'); ok(n.retryable, '5xx retryable');
  ok(parseProblem(429, null, '').retryable, '429 retryable');
  eq(parseProblem(410, 'application/json', '{not json').code, 'meeting_ended');
  ok(!describeCode('removed').includes('Error'), 'messages are sentences');
});

// ------------------------------------------------------------------ REST client against a real HTTP server

test('api: retries 503 with the SAME idempotency key, then succeeds', async () => {
  const api = new ApiClient({ sleep: noSleep });
  const id = 'k' + Math.random().toString(36).slice(2);
  const r = await api.request('POST', `/test/flaky/${id}?fail=3`, { a: 1 }, { keyPrefix: 'create-meeting' });
  eq(r.attempts, 4, 'three failures then success');
  eq(new Set(r.keys).size, 1, 'one key for all attempts');
  ok(r.keys[0].startsWith('create-meeting-'), 'key has the action prefix');
  const id2 = 'k' + Math.random().toString(36).slice(2);
  const r2 = await api.request('POST', `/test/flaky/${id2}?fail=0`, {}, { keyPrefix: 'create-meeting' });
  ok(r2.keys[0] !== r.keys[0], 'a new logical action gets a new key');
});

test('api: a caller-provided key (offline command) is used verbatim on every retry', async () => {
  const api = new ApiClient({ sleep: noSleep });
  const id = 'k' + Math.random().toString(36).slice(2);
  const r = await api.request('POST', `/test/flaky/${id}?fail=1`, {}, { idempotencyKey: 'cmd-mute-fixed-1' });
  eq(r.keys, ['cmd-mute-fixed-1', 'cmd-mute-fixed-1']);
});

test('api: 4xx refusals are not retried and carry the stable code', async () => {
  const api = new ApiClient({ sleep: noSleep });
  const tag = Math.random().toString(36).slice(2);
  const e = await rejects(api.request('POST', `/test/problem/403/meeting_locked_${tag}`, {}));
  eq(e.status, 403);
  eq(e.code, 'meeting_locked_' + tag);
  const calls = await (await fetch(`/v1/test/calls/problem/403/meeting_locked_${tag}`)).json();
  eq(calls.calls, 1, 'exactly one call for a 403');
});

test('api: gives up after maxAttempts on persistent 5xx', async () => {
  const api = new ApiClient({ sleep: noSleep, maxAttempts: 3 });
  const tag = Math.random().toString(36).slice(2);
  const e = await rejects(api.request('POST', `/test/problem/503/busy_${tag}`, {}));
  eq(e.status, 503);
  const calls = await (await fetch(`/v1/test/calls/problem/503/busy_${tag}`)).json();
  eq(calls.calls, 3);
});

test('api: network failure (nothing listening) becomes a retryable network error', async () => {
  let tries = 0;
  const api = new ApiClient({ baseUrl: 'http://127.0.0.1:9', sleep: async () => { tries++; }, maxAttempts: 2, timeoutMs: 2000 });
  const e = await rejects(api.getMeeting('x'));
  eq(e.code, 'network'); ok(e.retryable); eq(tries, 1, 'slept once between two attempts');
});

// ------------------------------------------------------------------ cursors

test('cursor: parse, order, and the tracker verdicts', () => {
  eq(parseCursor('12.1842'), { epoch: 12, seq: 1842 });
  eq(parseCursor('12'), null); eq(parseCursor('a.b'), null); eq(parseCursor(null), null);
  eq(compareCursor(parseCursor('3.9'), parseCursor('4.1')), -1);
  eq(compareCursor(parseCursor('4.2'), parseCursor('4.1')), 1);
  const t = new CursorTracker('5.10');
  eq(t.offer('5.11'), 'apply');
  eq(t.offer('5.11'), 'duplicate');
  eq(t.offer('5.9'), 'duplicate');
  eq(t.offer('4.99'), 'duplicate', 'older epoch');
  eq(t.offer('5.13'), 'gap');
  eq(t.value, '5.11', 'a gap does not move the cursor');
  eq(t.offer('6.1'), 'epoch_changed');
  eq(t.offer('garbage'), 'invalid');
  eq(t.invalid, 1);
  t.reset('6.4');
  eq(t.offer('6.5'), 'apply');
  eq(t.value, '6.5');
});

// ------------------------------------------------------------------ offline commands

test('offline commands: keep their key, expire, and unmute / start recording are never replayed', () => {
  let now = 1000;
  const q = new CommandQueue({ ttlMs: 5000, now: () => now, selfId: () => 'me' });
  const mute = q.enqueue(q.make({ type: 'set_publish', participant_id: 'bob', audio: false }));
  const rec = q.enqueue(q.make({ type: 'start_recording' }));
  const unmuteSelf = q.enqueue(q.make({ type: 'set_publish', participant_id: 'me', audio: true }));
  const lock = q.enqueue(q.make({ type: 'lock_meeting', locked: true }, { ttlMs: 1000 }));
  const stop = q.enqueue(q.make({ type: 'stop_recording' }));
  const regrant = q.enqueue(q.make({ type: 'set_publish', participant_id: 'bob', audio: true }));
  const keyBefore = mute.key;
  now += 2000; // lock (1 s ttl) expired, others alive
  const { send, dropped } = q.drainForReconnect();
  eq(send.map((c) => c.body.type), ['set_publish', 'stop_recording', 'set_publish']);
  eq(send[0].key, keyBefore, 'same idempotency key as when pressed');
  ok(send.includes(regrant), "re-granting someone else's audio is not an unmute of our own");
  const why = Object.fromEntries(dropped.map((d) => [d.cmd.body.type + (d.cmd.body.participant_id || ''), d.reason]));
  eq(why.start_recording, 'not_replayed');
  eq(why.set_publishme, 'not_replayed');
  eq(why.lock_meeting, 'command_expired');
  eq(q.pending.length, 0, 'drained');
  ok(isNeverReplayed({ type: 'set_publish', video: true }, 'me'), 'no participant id = self');
  ok(!isNeverReplayed({ type: 'set_publish', participant_id: 'me', audio: false }, 'me'), 'muting self may be replayed');
  ok(!q.alive(rec) || true);
  now += 10000;
  ok(!q.alive(stop), 'expired after ttl');
});

test('client: offline unmute and start recording are refused at once; a host mute is queued and sent with its key', async () => {
  const sent = [];
  const fakeFetch = async (url, init) => {
    sent.push({ url, key: init.headers['Idempotency-Key'], body: JSON.parse(init.body) });
    return new Response(JSON.stringify({ command_id: 'c' + sent.length, state: 'committed', participant_version: 3, media_enforcement: 'not_required' }), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const c = new ParleyClient({ token: 't', fetch: fakeFetch });
  c.meetingId = 'm1';
  c.store.set((s) => ({ admission: 'admitted', connection: 'reconnecting', self: { ...s.self, participant_id: 'me', role: 'host' },
    participants: { bob: { participant_id: 'bob', display_name: 'Bob', role: 'attendee', version: 2, publish: { audio: true, video: true, screen: true }, tracks: {} } } }));
  const rec = await c.startRecording();
  eq(rec.dropped, 'not_replayed');
  ok(c.state.notices.some((n) => n.code === 'not_replayed'), 'the person is told');
  const track = (await navigator.mediaDevices.getUserMedia({ audio: true })).getAudioTracks()[0];
  track.enabled = false;
  c.local.microphone = track;
  eq(await c.setMicrophone(true), false, 'unmute while offline is refused');
  eq(track.enabled, false, 'microphone stayed off');
  const muteP = c.mute('bob');
  eq(sent.length, 0, 'nothing sent while offline');
  eq(c.queue.pending.length, 1);
  const key = c.queue.pending[0].key;
  c.store.set({ connection: 'connected' });
  c.flushPending();
  const r = await muteP;
  eq(sent.length, 1, 'sent once after reconnect');
  eq(sent[0].key, key, 'with the key it got when pressed');
  eq(sent[0].body, { type: 'set_publish', participant_id: 'bob', audio: false, expected_participant_version: 2 });
  eq(r.command_id, 'c1');
  await c.command('lock_meeting', { locked: true });
  eq(sent.length, 2, 'online commands go straight out');
  ok(sent[1].key !== key, 'a new action, a new key');
  track.stop();
  void muteP;
});

test('client: a join answered joined_muted starts with microphone and camera off and says so; hand commands', async () => {
  const sent = [];
  const json = (o, status) => new Response(JSON.stringify(o), { status, headers: { 'content-type': status < 400 ? 'application/json' : 'application/problem+json' } });
  const fakeFetch = async (url, init) => {
    const u = String(url);
    sent.push({ url: u, body: init && init.body ? JSON.parse(init.body) : null });
    if (u.endsWith('/meetings/m1')) return json({ meeting_id: 'm1', encryption_mode: 'transport' }, 200);
    if (u.endsWith('/participants')) return json({ participant_id: 'me', admission_state: 'admitted', participant_version: 1, role: 'attendee', joined_muted: true }, 201);
    if (u.includes('/transports')) return json({ type: 'about:blank', title: 'bad', status: 400, code: 'invalid_field' }, 400); // stop the join here
    return json({ command_id: 'c' + sent.length, state: 'committed', media_enforcement: 'not_required' }, 201);
  };
  const c = new ParleyClient({ token: 't', fetch: fakeFetch });
  const stream = await navigator.mediaDevices.getUserMedia({ audio: true, video: true });
  const mic = stream.getAudioTracks()[0], cam = stream.getVideoTracks()[0];
  await c.join('m1', { displayName: 'Ann', microphone: mic, camera: cam }).catch(() => {});
  eq(mic.enabled, false, 'microphone off');
  eq(cam.enabled, false, 'camera off');
  eq(c.state.self.mic, { on: false, reason: 'joined_muted' });
  eq(c.state.self.camera, { on: false, reason: 'joined_muted' });
  ok(c.state.notices.some((n) => n.code === 'joined_muted' && /large meeting/.test(n.text)), 'the person is told');
  c.store.set({ admission: 'admitted', connection: 'connected' });
  eq(await c.setMicrophone(true), true, 'under unmute_policy everyone the person may unmute');
  eq(mic.enabled, true);
  const before = sent.length;
  await c.raiseHand();
  await c.allowSpeak('bob');
  await c.lowerHand('bob');
  await c.setLargeMeetingPolicy({ unmutePolicy: 'hosts_and_presenters' });
  eq(sent.slice(before).map((x) => x.body), [{ type: 'raise_hand' }, { type: 'allow_speak', participant_id: 'bob', allowed: true },
    { type: 'lower_hand', participant_id: 'bob' }, { type: 'set_large_meeting_policy', unmute_policy: 'hosts_and_presenters' }]);
  stream.getTracks().forEach((t) => t.stop());
});

// ------------------------------------------------------------------ state machine and reducer

test('state machine: allowed and forbidden connection transitions', () => {
  ok(canTransition('idle', 'connecting'));
  ok(canTransition('connecting', 'connected'));
  ok(canTransition('connected', 'reconnecting'));
  ok(canTransition('reconnecting', 'connected'));
  ok(canTransition('reconnecting', 'failed'));
  ok(canTransition('failed', 'connecting'));
  ok(!canTransition('idle', 'connected'), 'cannot be connected without connecting');
  ok(!canTransition('failed', 'connected'), 'failed needs a new attempt');
  ok(!canTransition('closed', 'reconnecting'));
  ok(!canTransition('connected', 'connecting'));
});

test('store: listeners see every change with the previous state', () => {
  const s = new Store({ a: 1 });
  const seen = [];
  const un = s.subscribe((n, p) => seen.push([p.a, n.a]));
  s.set({ a: 2 }); s.set((x) => ({ a: x.a + 1 }));
  un(); s.set({ a: 9 });
  eq(seen, [[1, 2], [2, 3]]);
});

function withSelf(extra = {}) {
  const s = initialState();
  return { ...s, admission: 'admitted', self: { ...s.self, participant_id: 'me', mic: { on: true, reason: null } }, ...extra };
}

test('reducer: a revoked microphone yields a local enforce_off; re-granting never unmutes', () => {
  let s = withSelf();
  let r = applyEvent(s, { type: 'permission_changed', participant_id: 'me', publish: { audio: false }, version: 5, applied: false, command_id: 'c1' });
  eq(r.effects, [{ type: 'enforce_off', source: 'audio', reason: 'permission_revoked' }]);
  eq(r.state.self.permissions.audio, { allowed: false, committed: true, applied: false, version: 5 });
  eq(r.state.commands.c1.state, 'committed');
  s = r.state;
  r = applyEvent(s, { type: 'command_applied', command_id: 'c1', participant_id: 'me' });
  eq(r.state.commands.c1.state, 'applied');
  ok(r.state.self.permissions.audio.applied, 'applied shown');
  r = applyEvent(r.state, { type: 'command_state', command_id: 'c1', state: 'committed' });
  eq(r.state.commands.c1.state, 'applied', 'applied is final');
  r = applyEvent(r.state, { type: 'permission_changed', participant_id: 'me', publish: { audio: true }, version: 6 });
  eq(r.effects.map((e) => e.type), ['permission_granted']);
  ok(r.state.self.permissions.audio.allowed);
  eq(r.state.self.mic.on, true, 'reducer never touches the mic switch (client turned it off on revoke)');
  r = applyEvent(r.state, { type: 'permission_changed', participant_id: 'me', publish: { audio: false }, version: 4 });
  ok(r.state.self.permissions.audio.allowed, 'older version ignored');
});

test('reducer: roster, waiting room, tracks, speakers, recording, lock, removal and end', () => {
  let s = withSelf();
  let r = applyEvent(s, { type: 'participant_joined', participant: { participant_id: 'g1', display_name: 'Guest', admission_state: 'waiting', participant_version: 1 } });
  ok(r.state.waiting.g1 && !r.state.participants.g1, 'waiting guest in the waiting list');
  r = applyEvent(r.state, { type: 'participant_updated', participant: { participant_id: 'g1', admission_state: 'admitted', participant_version: 2 } });
  ok(r.state.participants.g1 && !r.state.waiting.g1, 'admitted guest moves to the roster');
  eq(r.state.participants.g1.display_name, 'Guest', 'name kept from earlier event');
  r = applyEvent(r.state, { type: 'participant_updated', participant: { participant_id: 'g1', role: 'cohost', participant_version: 1 } });
  eq(r.state.participants.g1.role, 'attendee', 'stale full-state version ignored');
  r = applyEvent(r.state, { type: 'participant_updated', participant: { participant_id: 'g1', role: 'co_host', participant_version: 3 } });
  eq(r.state.participants.g1.role, 'cohost');
  r = applyEvent(r.state, { type: 'track_published', participant_id: 'g1', track_id: 't-cam', kind: 'video', source: 'camera' });
  eq(r.state.participants.g1.tracks.camera.trackId, 't-cam');
  r = applyEvent(r.state, { type: 'active_speakers', participant_ids: ['g1'] });
  eq(r.state.activeSpeakers, ['g1']);
  r = applyEvent(r.state, { type: 'recording_state', state: 'recording' });
  eq(r.state.recording.state, 'recording');
  r = applyEvent(r.state, { type: 'meeting_updated', locked: true });
  eq(r.state.meeting.locked, true);
  r = applyEvent(r.state, { type: 'permission_changed', participant_id: 'g1', publish: { audio: false }, version: 4 });
  eq(r.state.participants.g1.publish.audio, false);
  r = applyEvent(r.state, { type: 'participant_left', participant_id: 'g1' });
  ok(!r.state.participants.g1); eq(r.state.activeSpeakers, []);
  r = applyEvent(r.state, { type: 'participant_removed', participant_id: 'me', reason: 'removed' });
  eq(r.state.admission, 'removed'); eq(r.effects[0].type, 'removed');
  const e = applyEvent(withSelf(), { type: 'meeting_ended' });
  eq(e.state.admission, 'ended'); eq(e.effects, [{ type: 'ended' }]);
  const u = applyEvent(withSelf(), { type: 'unmute_requested', participant_id: 'me' });
  ok(u.state.unmuteRequest); eq(u.effects[0].type, 'unmute_requested');
  eq(applyEvent(withSelf(), { type: 'something_new' }).effects, [], 'unknown events are ignored');
});

test('reducer: controller event shapes (command_committed with its type overwritten, mute_all, lock false, volatile hints)', () => {
  let s = withSelf({ participants: { p1: { participant_id: 'p1', display_name: 'P', role: 'attendee', version: 1, publish: { audio: true, video: true, screen: false }, tracks: {}, connection: 'connected' } } });
  let r = applyEvent(s, { type: 'set_publish', event_id: 'e', command_id: 'c9', media_enforcement: 'pending', participant_id: 'p1' });
  eq(r.state.commands.c9, { type: 'set_publish', participant_id: 'p1', state: 'committed', media_enforcement: 'pending' });
  r = applyEvent(r.state, { type: 'command_applied', command_id: 'c9', media_enforcement: 'applied' });
  eq(r.state.commands.c9.state, 'applied');
  r = applyEvent(r.state, { type: 'mute_all', allow_self_unmute: true });
  eq(r.effects, [{ type: 'mute_all', allowSelfUnmute: true }], 'attendees mute locally');
  const host = applyEvent({ ...r.state, self: { ...r.state.self, role: 'host' } }, { type: 'mute_all', allow_self_unmute: false });
  eq(host.effects, [], 'moderators are not muted by mute_all');
  r = applyEvent(r.state, { type: 'meeting_locked', locked: true });
  eq(r.state.meeting.locked, true);
  r = applyEvent(r.state, { type: 'meeting_locked', locked: false });
  eq(r.state.meeting.locked, false, 'unlock arrives as meeting_locked {locked:false}');
  r = applyEvent(r.state, { type: 'participant_reconnecting', detail: 'p1', volatile: true });
  eq(r.state.participants.p1.connection, 'reconnecting');
  r = applyEvent(r.state, { type: 'transport_connected', detail: 'p1', volatile: true });
  eq(r.state.participants.p1.connection, 'connected');
  r = applyEvent(r.state, { type: 'active_speakers', detail: 'p1', volatile: true });
  eq(r.state.activeSpeakers, ['p1']);
  r = applyEvent(r.state, { type: 'role_changed', participant_id: 'p1', role: 'cohost', participant_version: 2, publish: { audio: true, video: true, screen: true } });
  eq(r.state.participants.p1.role, 'cohost');
  eq(r.state.participants.p1.publish.screen, true);
  r = applyEvent(r.state, { type: 'recording_state', recording_job_id: 'j1', state: 'requested' });
  eq(r.state.recording, { state: 'requested', job_id: 'j1' });
  r = applyEvent(r.state, { type: 'recording_state', recording_job_id: 'j1', stop_requested: true });
  eq(r.state.recording.state, 'finalizing');
  const d = applyEvent({ ...withSelf(), admission: 'waiting' }, { type: 'participant_denied', participant_id: 'me', admission_state: 'removed' });
  eq(d.state.admission, 'denied', 'a denial is not shown as a removal');
});

test('dynacast and pauses: encodings switched by rid, simulcast choice, paused/resumed subscriptions, SFU quality levels', () => {
  const enc = [{ rid: 'q', active: true }, { rid: 'h', active: true }, { rid: 'f', active: true }];
  eq(layerChanges(enc, { active_layers: [true, false, false], rids: ['q', 'h', 'f'] }), [{ index: 1, active: false }, { index: 2, active: false }]);
  eq(layerChanges([{ rid: 'f', active: false }, { rid: 'q' }], { active_layers: [true, true, true], rids: ['q', 'h', 'f'] }),
    [{ index: 0, active: true }], 'matched by rid, not position; an absent active means on');
  eq(layerChanges(enc, { active_layers: [true, true, true] }), [], 'nothing to change');
  eq(layerChanges([{ active: true }, { active: true }], { active_layers: [true, false] }), [{ index: 1, active: false }], 'no rids: by position');
  const track = (width) => ({ getSettings: () => ({ width }) });
  eq([wantsSimulcast('auto', track(1280)), wantsSimulcast('auto', track(640)), wantsSimulcast(true, track(640)),
    wantsSimulcast(false, track(1280)), wantsSimulcast('auto', null)], [true, false, true, false, false]);

  let r = applyEvent(withSelf(), { type: 'subscription_paused', participant_id: 'me', track_id: 'p1:1', publisher_id: 'p1', reason: 'bandwidth', volatile: true });
  eq(r.state.pausedSubscriptions['p1:1'].participantId, 'p1');
  eq(r.state.pausedSubscriptions['p1:1'].source, 'camera');
  r = applyEvent(r.state, { type: 'subscription_paused', participant_id: 'someone-else', track_id: 'p2:1', volatile: true });
  eq(Object.keys(r.state.pausedSubscriptions), ['p1:1'], 'an event for another participant is ignored');
  r = applyEvent(r.state, { type: 'subscription_resumed', participant_id: 'me', track_id: 'p1:1', volatile: true });
  eq(r.state.pausedSubscriptions, {});
  r = applyEvent(r.state, { type: 'subscription_resumed', participant_id: 'me', track_id: 'p3:1', sequence: 5, volatile: true });
  r = applyEvent(r.state, { type: 'subscription_paused', participant_id: 'me', track_id: 'p3:1', sequence: 4, volatile: true });
  eq(r.state.pausedSubscriptions, {}, 'a pause notice that arrives after the newer resume is ignored');
  r = applyEvent(r.state, { type: 'subscription_paused', participant_id: 'me', track_id: 'p3:1', sequence: 1, transport_generation: 2, volatile: true });
  eq(Object.keys(r.state.pausedSubscriptions), ['p3:1'], 'a newer generation (another SFU numbering from 1) counts');
  r = applyEvent(r.state, { type: 'quality', participant_id: 'me', level: 'excellent', loss_fraction: 0.01, rtt_ms: -1, jitter_ms: 3, estimate_bps: 2000000, top_spatial_layer: 2, sequence: 1, volatile: true });
  eq(r.state.quality.serverLevel, 'good');
  eq(r.state.quality.server.estimateBps, 2000000);
  eq(r.state.quality.server.rttMs, null, 'unknown rtt');
  r = applyEvent(r.state, { type: 'quality', participant_id: 'me', level: 'good', sequence: 2, volatile: true });
  eq(r.state.quality.serverLevel, 'fair', 'the SFU\'s "good" (video below the layout) is fair on the indicator');
});

test('reducer: snapshot replaces roster and permissions', () => {
  let s = withSelf({ participants: { old: { participant_id: 'old', version: 1, publish: {}, tracks: {} } } });
  s = applySnapshot(s, { meeting_status: 'live', control_cursor: '12.1842', self: { admission_state: 'admitted', participant_version: 5, audio_publish_allowed: false } },
    { participants: [{ participant_id: 'me' }, { participant_id: 'a', display_name: 'A', admission_state: 'admitted' }, { participant_id: 'w', display_name: 'W', admission_state: 'waiting' }] });
  eq(s.cursor, '12.1842');
  eq(Object.keys(s.participants), ['a']);
  eq(Object.keys(s.waiting), ['w']);
  eq(s.self.permissions.audio.allowed, false);
  eq(s.self.participant_version, 5);
});

test('client: a revoked microphone turns the local track off and says why; re-grant keeps it off; consent unmutes', async () => {
  const c = new ParleyClient({ token: 't', fetch: async () => new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } }) });
  const track = (await navigator.mediaDevices.getUserMedia({ audio: true })).getAudioTracks()[0];
  c.local.microphone = track;
  c.store.set((s) => ({ admission: 'admitted', connection: 'connected', self: { ...s.self, participant_id: 'me', mic: { on: true, reason: null } } }));
  eq(track.enabled, true);
  c.handleEvent({ type: 'permission_changed', participant_id: 'me', publish: { audio: false }, version: 7 }, '1.1');
  eq(track.enabled, false, 'local track off at once');
  eq(c.state.self.mic, { on: false, reason: 'permission_revoked' });
  ok(c.state.notices.some((n) => n.code === 'permission_revoked' && /muted you/.test(n.text)), 'UI says why');
  eq(await c.setMicrophone(true), false, 'cannot unmute while revoked');
  eq(track.enabled, false);
  c.handleEvent({ type: 'permission_changed', participant_id: 'me', publish: { audio: true }, version: 8 }, '1.2');
  eq(track.enabled, false, 're-granting does not unmute');
  eq(c.state.self.mic.on, false);
  c.handleEvent({ type: 'unmute_requested', participant_id: 'me' }, '1.3');
  ok(c.state.unmuteRequest, 'request shown');
  eq(track.enabled, false, 'a request alone does not unmute');
  eq(await c.answerUnmuteRequest(false), false);
  eq(track.enabled, false, 'declined: still off');
  c.handleEvent({ type: 'unmute_requested', participant_id: 'me' }, '1.4');
  eq(await c.answerUnmuteRequest(true), true);
  eq(track.enabled, true, 'consent unmutes');
  eq(c.state.cursor, '1.4');
  track.stop();
});

test('client: screen share in this browser setup, stopped when the host revokes it', async () => {
  const c = new ParleyClient({ token: 't', fetch: async () => new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } }) });
  c.store.set((s) => ({ admission: 'admitted', connection: 'connected', self: { ...s.self, participant_id: 'me' } }));
  eq(await c.startScreenShare(), true, 'getDisplayMedia works (fake UI auto-picks a screen)');
  ok(c.local.screen && c.local.screen.readyState === 'live');
  eq(c.state.self.screen.on, true);
  const t = c.local.screen;
  c.handleEvent({ type: 'permission_changed', participant_id: 'me', publish: { screen: false }, participant_version: 3 }, '1.1');
  eq(t.readyState, 'ended', 'revoked: capture stopped');
  eq(c.state.self.screen, { on: false, reason: 'permission_revoked' });
  eq(await c.startScreenShare(), false, 'refused while not allowed');
  ok(c.state.notices.at(-1).code === 'permission_revoked');
});

test('client: shareScreen(track) shares a given track; pin() re-sends the subscription with pinned, unpin clears it', async () => {
  const c = new ParleyClient({ token: 't', fetch: async () => new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } }) });
  c.store.set((s) => ({ admission: 'admitted', connection: 'connected', self: { ...s.self, participant_id: 'me' } }));
  const canvas = document.createElement('canvas');
  canvas.getContext('2d').fillRect(0, 0, 10, 10);
  const given = canvas.captureStream(5).getVideoTracks()[0];
  eq(await c.shareScreen(given), true);
  ok(c.local.screen === given, 'the given track is the screen');
  eq(c.state.self.screen.on, true);
  await c.stopScreenShare();

  const sent = [];
  c.signaling = { open: true, send: (m) => { sent.push(JSON.parse(JSON.stringify(m))); return true; } };
  c.viewport = [{ track_id: 'bob:1', max_width: 640, max_height: 360, max_fps: 30 }, { track_id: 'ann:1', max_width: 320, max_height: 180, max_fps: 15 },
    { track_id: 'ann:2', max_width: 1280, max_height: 720, max_fps: 15 }];
  c.pin('ann');
  eq(sent.at(-1).type, 'subscribe');
  eq(sent.at(-1).tracks.filter((t) => t.pinned).map((t) => t.track_id), ['ann:1', 'ann:2'], 'a participant pin covers its videos');
  ok(!('pinned' in sent.at(-1).tracks[0]), 'others are not pinned');
  c.pin('bob:1');
  eq(sent.at(-1).tracks.filter((t) => t.pinned).map((t) => t.track_id), ['bob:1'], 'a track pin');
  c.viewport = [{ track_id: 'ann:1', max_width: 320, max_height: 180, max_fps: 15 }];
  c.pin(null);
  eq(sent.at(-1).tracks, [{ track_id: 'ann:1', max_width: 320, max_height: 180, max_fps: 15 },
    { track_id: 'bob:1', max_width: 0, max_height: 0, max_fps: 0 }], 'the pinned track out of view is sent unpinned');
  c.pin(null);
  eq(sent.at(-1).tracks, [{ track_id: 'ann:1', max_width: 320, max_height: 180, max_fps: 15 }], 'and only once');
  c.setViewport([{ track_id: 'ann:1', max_width: 320, max_height: 180, max_fps: 15, pinned: true }]);
  await waitFor(() => sent.length === 5, 2000);
  eq(sent.at(-1).tracks, [{ track_id: 'ann:1', max_width: 320, max_height: 180, max_fps: 15, pinned: true }], 'the viewport may mark a pin');
});

test('reducer: a track_published source files a remote screen under tracks.screen; the SFU report carries its RTT', () => {
  let s = withSelf();
  s = applyEvent(s, { type: 'participant_joined', participant: { participant_id: 'ann', display_name: 'Ann', admission_state: 'admitted', participant_version: 1 } }).state;
  s = applyEvent(s, { type: 'track_published', participant_id: 'ann', track_id: 'ann:1', kind: 'video', source: 'camera' }).state;
  s = applyEvent(s, { type: 'track_published', participant_id: 'ann', track_id: 'ann:2', kind: 'video', source: 'screen' }).state;
  eq(s.participants.ann.tracks.camera.trackId, 'ann:1');
  eq(s.participants.ann.tracks.screen.trackId, 'ann:2', 'the screen is not filed over the camera');
  s = applyEvent(s, { type: 'quality', participant_id: s.self.participant_id, level: 'excellent', loss_fraction: 0, rtt_ms: 42, jitter_ms: 3, estimate_bps: 900000, top_spatial_layer: 2, sequence: 1 }).state;
  eq(s.quality.server.rttMs, 42);
  s = applyEvent(s, { type: 'quality', participant_id: s.self.participant_id, level: 'good', loss_fraction: 0, rtt_ms: -1, jitter_ms: 3, estimate_bps: 900000, top_spatial_layer: 2, sequence: 2 }).state;
  eq(s.quality.server.rttMs, null, '-1 = not measured');
});

// ------------------------------------------------------------------ slots

test('slots: mid -> remote track map from either shape; free and inconsistent slots ignored', () => {
  const m = mapSlots([
    { mid: '0', participant_id: 'p1', track_id: 'p1-mic', kind: 'audio' },
    { mid: '4', participant_id: 'p1', track_id: 'p1-cam', kind: 'video', source: 'camera' },
    { mid: '5', participant_id: 'p2', track_id: 'p2-scr', kind: 'video', source: 'screen' },
    { mid: '1', participant_id: null },
    { mid: '6', participant_id: 'p3', kind: 'audio' },
    { participant_id: 'p9' },
  ], { 0: 'audio', 1: 'audio', 4: 'video', 5: 'video', 6: 'video' });
  eq([...m.keys()], ['0', '4', '5']);
  eq(m.get('5'), { mid: '5', participantId: 'p2', trackId: 'p2-scr', kind: 'video', source: 'screen' });
  eq(m.get('0').source, 'microphone', 'default source of audio');
  const o = mapSlots({ 2: { participant_id: 'p1', track_id: 'x', kind: 'video' } }, { 2: 'video' });
  eq(o.get('2').trackId, 'x');
  const d = diffSlots(m, mapSlots([{ mid: '0', participant_id: 'p1', track_id: 'p1-mic', kind: 'audio' }, { mid: '4', participant_id: 'p3', track_id: 'p3-cam', kind: 'video' }], { 0: 'audio', 4: 'video' }));
  eq(d.removed.map((r) => r.trackId).sort(), ['p1-cam', 'p2-scr']);
  eq(d.added.map((r) => r.trackId), ['p3-cam']);
  const sfuNamed = mapSlots([{ mid: '3', participant_id: 'p7', track_id: 'p7:2', kind: 'video' }, { mid: '4', participant_id: 'p7', track_id: 'p7:1', kind: 'video' },
    { mid: '0', participant_id: 'p7', track_id: 'p7:0', kind: 'audio' }], { 0: 'audio', 3: 'video', 4: 'video' });
  eq([...sfuNamed.values()].map((r) => r.source), ['screen', 'camera', 'microphone'], "source from the publisher's mid in the SFU's track id");
  eq(slotsNeeded(0), { audio: 4, video: 4 });
  eq(slotsNeeded(4), { audio: 4, video: 8 });
  eq(slotsNeeded(30), { audio: 32, video: 16 }, 'video capped');
});

// ------------------------------------------------------------------ signaling with a scripted socket

/** A WebSocket stand-in driven by the test (the transport is not under test here, the client logic is). */
class ScriptedSocket {
  static all = [];
  constructor(url) { this.url = url; this.readyState = 0; this.sent = []; ScriptedSocket.all.push(this); setTimeout(() => { this.readyState = 1; this.onopen?.(); }, 0); }
  send(s) { this.sent.push(JSON.parse(s)); }
  close(code = 1006, reason = '') { if (this.readyState === 3) return; this.readyState = 3; setTimeout(() => this.onclose?.({ code, reason }), 0); }
  serverSend(o) { this.onmessage?.({ data: JSON.stringify(o) }); }
}

test('signaling: join, ordered events, drop -> resume with the last applied cursor, duplicates skipped, gap -> snapshot', async () => {
  ScriptedSocket.all = [];
  let tickets = 0;
  const applied = [];
  const states = [];
  let resyncs = 0;
  const sig = new SignalingClient({
    WebSocketImpl: ScriptedSocket,
    getTicket: async () => ({ url: 'ws://localhost/v1/connect', ticket: 'ticket-' + (++tickets) }),
    onMessage: () => {},
    onEvent: (ev, cursor) => applied.push(cursor),
    onResync: async () => { resyncs++; return '5.20'; },
    onState: (s) => states.push(s),
    backoff: { baseMs: 1, maxMs: 5 },
    pingIntervalMs: 30,
  });
  await sig.connect();
  await waitFor(() => ScriptedSocket.all[0]?.sent.length > 0, 2000, 'join sent');
  const s1 = ScriptedSocket.all[0];
  eq(s1.sent[0], { type: 'join', connect_ticket: 'ticket-1' });
  s1.serverSend({ type: 'joined', cursor: '5.10' });
  s1.serverSend({ type: 'event', cursor: '5.11', event: { type: 'x' } });
  s1.serverSend({ type: 'event', cursor: '5.12', event: { type: 'x' } });
  s1.serverSend({ type: 'event', cursor: '5.12', event: { type: 'x' } });
  eq(applied, ['5.11', '5.12']);
  await waitFor(() => s1.sent.some((m) => m.type === 'ping'), 2000, 'ping');
  s1.close(1006);
  await waitFor(() => ScriptedSocket.all.length === 2 && ScriptedSocket.all[1].sent.length > 0, 3000, 'reconnect');
  let s2 = ScriptedSocket.all[1];
  eq(s2.sent[0], { type: 'resume', connect_ticket: 'ticket-2', resume_after: '5.12' }, 'fresh single-use ticket + cursor');
  ok(states.includes('reconnecting'), 'reported reconnecting');
  s2.serverSend({ type: 'joined', cursor: '5.13' });
  s2.serverSend({ type: 'event', cursor: '5.12', event: { type: 'x' } });
  s2.serverSend({ type: 'event', cursor: '5.13', event: { type: 'x' } });
  eq(applied, ['5.11', '5.12', '5.13'], 'replayed duplicate skipped, missed event applied');
  s2.serverSend({ type: 'event', cursor: '5.16', event: { type: 'x' } });
  await waitFor(() => resyncs === 1, 2000, 'resync on gap');
  eq(sig.cursor.value, '5.20', 'cursor from the snapshot; the older buffered event is not applied');
  eq(applied, ['5.11', '5.12', '5.13']);
  s2.serverSend({ type: 'event', cursor: '5.21', event: { type: 'x' } });
  eq(applied.at(-1), '5.21');
  s2.serverSend({ type: 'event', event: { type: 'active_speakers', detail: 'p1', volatile: true } });
  eq(applied.at(-1), null, 'volatile event applied without a cursor');
  eq(sig.cursor.value, '5.21', 'and without moving the cursor');
  s2.serverSend({ type: 'snapshot_required' });
  await waitFor(() => resyncs === 2, 2000, 'snapshot_required -> resync');
  eq(sig.resumeLog, ['5.12']);
  sig.drop();
  await waitFor(() => ScriptedSocket.all.length === 3 && ScriptedSocket.all[2].sent.length > 0, 3000, 'reconnect after drop');
  eq(ScriptedSocket.all[2].sent[0].type, 'resume');
  eq(ScriptedSocket.all[2].sent[0].resume_after, sig.cursor.value, 'drop resumes from the cursor');
  const s3 = ScriptedSocket.all[2];
  s3.serverSend({ type: 'joined', cursor: sig.cursor.value });
  sig.close();
  const s2closed = s2.readyState;
  eq(s2closed, 3, 'the dropped socket is closed');
  s2 = s3;
  eq(s2.sent.at(-1), { type: 'leave' });
});

test('signaling: a fatal refusal stops reconnecting (removed / ended)', async () => {
  ScriptedSocket.all = [];
  const states = [];
  const sig = new SignalingClient({
    WebSocketImpl: ScriptedSocket,
    getTicket: async () => ({ url: 'ws://localhost/v1/connect', ticket: 't' }),
    onMessage: () => {}, onEvent: () => {}, onResync: async () => null,
    onState: (s, d) => states.push(s + (d?.code ? ':' + d.code : '')),
    backoff: { baseMs: 1, maxMs: 2 },
  });
  await sig.connect();
  await waitFor(() => ScriptedSocket.all[0]?.sent.length > 0);
  ScriptedSocket.all[0].serverSend({ type: 'joined', cursor: '1.1' });
  ScriptedSocket.all[0].serverSend({ type: 'error', code: 'participant_removed' });
  await new Promise((r) => setTimeout(r, 100));
  ok(states.includes('failed:participant_removed'), JSON.stringify(states));
  eq(ScriptedSocket.all.length, 1, 'no reconnect after removal');
});

test('signaling: a ticket that cannot be had because we were removed fails at once', async () => {
  const states = [];
  const sig = new SignalingClient({
    WebSocketImpl: ScriptedSocket,
    getTicket: async () => { throw new ParleyError({ status: 403, code: 'rejoin_forbidden' }); },
    onMessage: () => {}, onEvent: () => {}, onResync: async () => null,
    onState: (s, d) => states.push(s + (d?.code ? ':' + d.code : '')),
  });
  await sig.connect();
  eq(states, ['connecting', 'failed:rejoin_forbidden']);
});

// ------------------------------------------------------------------ quality

test('quality: levels from rtt and loss; worse of two views', () => {
  eq(qualityLevel({ connected: false, rttMs: 10, lossPct: 0 }), 'lost');
  eq(qualityLevel({ connected: true, rttMs: null, lossPct: null }), 'unknown');
  eq(qualityLevel({ connected: true, rttMs: 40, lossPct: 0.5 }), 'good');
  eq(qualityLevel({ connected: true, rttMs: 300, lossPct: 0 }), 'fair');
  eq(qualityLevel({ connected: true, rttMs: 40, lossPct: 12 }), 'poor');
  eq(intervalLossPct({ lost: 0, received: 100 }, { lost: 10, received: 190 }), 10);
  eq(intervalLossPct(null, { lost: 1, received: 1 }), null);
  eq(worseQuality('good', 'poor'), 'poor');
  eq(worseQuality('fair', 'unknown'), 'fair');
});

test('slots: a slot_delta applies on its base version; a lost one is a gap that asks for the whole map once', () => {
  eq(deltaFits(7, { base: 7, version: 8 }), 'apply');
  eq(deltaFits(8, { base: 7, version: 8 }), 'stale');
  eq(deltaFits(7, { base: 8, version: 9 }), 'gap');
  eq(applySlotDelta([{ mid: '0', participant_id: 'a' }, { mid: '1', participant_id: 'b' }],
    [{ mid: '1', participant_id: null }, { mid: '2', participant_id: 'c' }]).map((x) => x.mid + x.participant_id), ['0a', '2c']);
  const sent = [];
  const seen = [];
  const media = new MediaSession({ send: (m) => { sent.push(m); return true; }, onRemoteTrack: (r) => seen.push('+' + r.participantId),
    onRemoteTrackRemoved: (r) => seen.push('-' + r.participantId), onNeedNewGeneration: () => {} });
  media.sub = /** @type {any} */ ({ getTransceivers: () => ['0', '1'].map((mid) => ({ mid, receiver: { track: { kind: 'audio' } } })) });
  media.handleMessage({ type: 'subscribed', slot_version: 7, slot_assignments: [{ mid: '0', participant_id: 'a', track_id: 'a:0' }] });
  media.applySlotDelta({ base: 7, version: 8, changes: [{ mid: '0', participant_id: 'b', track_id: 'b:0', kind: 'audio' }] });
  eq(seen, ['+a', '-a', '+b']);
  media.applySlotDelta({ base: 9, version: 10, changes: [{ mid: '1', participant_id: 'c', track_id: 'c:0', kind: 'audio' }] });
  media.applySlotDelta({ base: 10, version: 11, changes: [] });
  eq(sent, [{ type: 'subscribe', tracks: [] }], 'one request for the whole map, nothing applied past the gap');
  eq(seen.length, 3);
  media.handleMessage({ type: 'subscribed', slot_version: 11, slot_assignments: [{ mid: '0', participant_id: 'b', track_id: 'b:0' }, { mid: '1', participant_id: 'c', track_id: 'c:0' }] });
  eq(seen, ['+a', '-a', '+b', '+c']);
  eq(media.slotVersion, 11);
});

// ------------------------------------------------------------------ media: real WebRTC in this page

test('media: slot assignments put the right remote track on the right mid (browser loopback answerer)', async () => {
  // A second RTCPeerConnection in the page plays the answering side so the SDK's real transceivers,
  // offers and slot mapping run. It is a browser stand-in for the network, not a test of the SFU.
  const gum = await navigator.mediaDevices.getUserMedia({ audio: true, video: { width: 320, height: 180 } });
  const answerers = {};
  const removed = [];
  const got = [];
  let media;
  const send = (msg) => {
    if (msg.type !== 'offer') return true;
    (async () => {
      const pc = answerers[msg.transport] || (answerers[msg.transport] = new RTCPeerConnection());
      await pc.setRemoteDescription({ type: 'offer', sdp: msg.sdp });
      const slots = [];
      if (msg.transport === 'subscribe') {
        const vids = pc.getTransceivers().filter((t) => t.receiver.track.kind === 'video');
        const auds = pc.getTransceivers().filter((t) => t.receiver.track.kind === 'audio');
        vids[1].direction = 'sendonly'; await vids[1].sender.replaceTrack(gum.getVideoTracks()[0]);
        auds[2].direction = 'sendonly'; await auds[2].sender.replaceTrack(gum.getAudioTracks()[0]);
        slots.push({ mid: vids[1].mid, participant_id: 'alice', track_id: 'alice-cam', kind: 'video', source: 'camera' });
        slots.push({ mid: auds[2].mid, participant_id: 'alice', track_id: 'alice-mic', kind: 'audio' });
      } else {
        for (const t of pc.getTransceivers()) t.direction = 'recvonly';
      }
      const ans = await pc.createAnswer();
      await pc.setLocalDescription(ans);
      await new Promise((r) => { if (pc.iceGatheringState === 'complete') r(); else pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && r(); setTimeout(r, 1500); });
      media.handleMessage({ type: 'answer', transport: msg.transport, sdp: pc.localDescription.sdp, slot_assignments: msg.transport === 'subscribe' ? slots : undefined });
    })();
    return true;
  };
  media = new MediaSession({ send, onRemoteTrack: (ref, track) => got.push([ref.mid, ref.participantId, ref.source, track.kind]), onRemoteTrackRemoved: (r) => removed.push(r.trackId), onNeedNewGeneration: () => {} });
  // trickle: hand candidates to the answerer directly
  const origWatch = send;
  void origWatch;
  await media.start({ microphone: gum.getAudioTracks()[0], camera: null }, 2);
  media.pub.onicecandidate = (e) => e.candidate && answerers.publish?.addIceCandidate(e.candidate).catch(() => {});
  media.sub.onicecandidate = (e) => e.candidate && answerers.subscribe?.addIceCandidate(e.candidate).catch(() => {});
  eq(media.publishSources().map((s) => s.source), ['microphone', 'camera', 'screen']);
  eq(got.length, 2, 'two remote tracks mapped');
  ok(got.some((g) => g[1] === 'alice' && g[2] === 'camera' && g[3] === 'video'), JSON.stringify(got));
  ok(got.some((g) => g[1] === 'alice' && g[2] === 'microphone' && g[3] === 'audio'));
  await waitFor(async () => (await media.stats()).tracks.some((t) => t.participantId === 'alice' && t.kind === 'video' && t.framesDecoded > 3), 10000, 'frames decoded on the mapped mid');
  media.applySlotAssignments([]);
  eq(removed.sort(), ['alice-cam', 'alice-mic'], 'freed slots detach their tracks');
  media.close();
  Object.values(answerers).forEach((pc) => pc.close());
  gum.getTracks().forEach((t) => t.stop());
});

export async function runAll() { return run(registered()); }

/** Proves the harness can fail: a deliberately wrong assertion must be reported as a failure. */
export async function selfCheck() {
  return run([{ name: 'deliberately failing', fn: () => eq(1 + 1, 3) }, { name: 'deliberately timing out', fn: () => new Promise(() => {}) }], 200);
}
void AssertionError;
