// Observable client state that a UI renders, plus the connection state machine and the reducer that
// folds server events into state. Pure functions where possible so they can be tested in a page
// without any server.

import { initialHands, applyHandEvent, applyHandSnapshot } from './hands.js';

/** @typedef {'idle'|'connecting'|'connected'|'reconnecting'|'failed'|'closed'} ConnectionState */

/** Allowed connection transitions. Anything else is a bug and throws. */
const TRANSITIONS = {
  idle: ['connecting', 'closed'],
  connecting: ['connected', 'reconnecting', 'failed', 'closed'],
  connected: ['reconnecting', 'failed', 'closed'],
  reconnecting: ['connected', 'failed', 'closed'],
  failed: ['connecting', 'closed'],
  closed: ['connecting'],
};

/** @param {ConnectionState} from @param {ConnectionState} to */
export function canTransition(from, to) {
  return from === to || (TRANSITIONS[from] || []).includes(to);
}

/** A tiny observable store: get(), set(patch|fn), subscribe(fn) -> unsubscribe. */
export class Store {
  /** @param {Object} initial */
  constructor(initial) {
    this.state = initial;
    /** @type {Set<(s:Object, prev:Object) => void>} */
    this.listeners = new Set();
  }
  get() { return this.state; }
  /** @param {Object|((s:Object) => Object)} patch */
  set(patch) {
    const prev = this.state;
    const p = typeof patch === 'function' ? patch(prev) : patch;
    if (!p || p === prev) return;
    this.state = { ...prev, ...p };
    for (const l of [...this.listeners]) {
      try { l(this.state, prev); } catch (e) { console.error('state listener failed', e); }
    }
  }
  /** @param {(s:Object, prev:Object) => void} fn */
  subscribe(fn) { this.listeners.add(fn); return () => this.listeners.delete(fn); }
}

/** @typedef {{allowed:boolean, committed:boolean, applied:boolean, version:number}} Permission */

/** @returns {Object} the empty state of a client */
export function initialState() {
  return {
    /** @type {ConnectionState} */ connection: 'idle',
    connectionReason: null,
    /** none | joining | waiting | admitted | denied | removed | ended */ admission: 'none',
    meeting: null,
    self: {
      participant_id: null, display_name: '', role: 'attendee', participant_version: 0,
      permissions: {
        audio: { allowed: true, committed: true, applied: true, version: 0 },
        video: { allowed: true, committed: true, applied: true, version: 0 },
        screen: { allowed: true, committed: true, applied: true, version: 0 },
      },
      mic: { on: false, reason: null }, camera: { on: false, reason: null }, screen: { on: false, reason: null },
      /** large meetings: our hand is up; a moderator allowed us to speak; we joined muted with camera off */
      handRaised: false, speakAllowed: false, joinedMuted: false,
    },
    /** participant_id -> remote participant (paged roster: the watched ones and moderators; see `roster`) */ participants: {},
    /**
     * The roster's size and mode. `paged`: the server sends this client only the changes of the participants it
     * watches (its roster page, itself, hosts) and counts (`roster_summary`): `participants` is then not everyone,
     * `count` is (admitted, self included). `page`: the page shown (`ParleyClient.rosterPage`).
     */
    roster: { paged: false, pageAbove: null, count: null, waiting: null, byRole: {}, page: null },
    /** participant_id -> waiting-room entry (visible to hosts) */ waiting: {},
    activeSpeakers: [],
    /** our simulcast encodings as dynacast left them: source -> {rids, active:[bool], maxSpatialLayer, changes, at} */
    publishLayers: {},
    /** remote videos the SFU paused for us: track_id -> {participantId, source, reason, since} */
    pausedSubscriptions: {},
    /** track_id -> {gen, seq} of the last pause notice applied */
    pausedSubscriptionSeq: {},
    quality: { level: 'unknown', rttMs: null, lossPct: null, source: null },
    /** command_id -> {type, participant_id, state, media_enforcement} */ commands: {},
    recording: { state: 'idle' },
    unmuteRequest: null,
    transportGeneration: 0,
    cursor: null,
    /** newest last */ notices: [],
    ...initialHands(),
  };
}

/** The SFU's connection-quality levels on the client's scale. */
const SERVER_LEVEL = { excellent: 'good', good: 'fair', poor: 'poor', lost: 'lost' };

let noticeSeq = 0;
/** Append a user-visible notice (bounded list). */
export function withNotice(state, level, code, text) {
  const notices = [...state.notices, { id: ++noticeSeq, level, code, text, at: Date.now() }].slice(-20);
  return { ...state, notices };
}

/** Map a role string from the server onto the three roles the UI knows. */
export function normalRole(r) {
  if (r === 'host' || r === 'cohost' || r === 'co_host' || r === 'co-host') return r === 'host' ? 'host' : 'cohost';
  return 'attendee';
}

/** Normalise a participant document from any event or roster page. */
export function normalParticipant(p, prev = {}) {
  const publish = p.publish || p.publish_allowed || prev.publish || { audio: true, video: true, screen: true };
  return {
    participant_id: String(p.participant_id ?? prev.participant_id),
    display_name: p.display_name ?? prev.display_name ?? 'Guest',
    role: normalRole(p.role ?? prev.role),
    admission_state: p.admission_state ?? prev.admission_state ?? 'admitted',
    version: Number(p.participant_version ?? p.version ?? prev.version ?? 0),
    publish: { audio: publish.audio !== false, video: publish.video !== false, screen: publish.screen !== false },
    connection: p.connection_state ?? p.connection ?? prev.connection ?? 'connected',
    tracks: prev.tracks || {},
    quality: prev.quality || 'unknown',
    muted: p.muted ?? prev.muted ?? false,
  };
}

/**
 * Fold one server event into state. Returns the new state and side effects the client must perform
 * (local enforcement happens outside the reducer so the reducer stays pure).
 * @param {Object} state
 * @param {Object} ev  the `event` field of an `event` message
 * @returns {{state:Object, effects:Object[]}}
 */
export function applyEvent(state, ev) {
  const effects = [];
  const selfId = state.self.participant_id;
  let type = ev?.type;
  // A command_committed event whose payload `type` (the command's type) replaced the event type.
  if (ev?.command_id && ev.media_enforcement && !['command_committed', 'command_applied', 'command_state', 'command_failed', 'permission_changed'].includes(type)) {
    ev = { ...ev, command_type: ev.command_type ?? type };
    type = 'command_committed';
  }
  let s = state;
  const pid = ev?.participant_id ?? ev?.participant?.participant_id;
  const hands = applyHandEvent(s, ev || {}, effects);
  if (hands) return { state: hands, effects };
  switch (type) {
    case 'participant_joined':
    case 'participant_updated':
    case 'role_changed':
    case 'participant_waiting':
    case 'participant_admitted': {
      const p = ev.participant || ev;
      if (!p.participant_id) break;
      const id = String(p.participant_id);
      if (id === selfId) { s = applySelf(s, p, effects); break; }
      const prev = s.participants[id] || s.waiting[id];
      if (prev && Number(p.participant_version ?? p.version ?? Infinity) < prev.version) break; // stale full state
      const np = normalParticipant(p, prev || {});
      if (type === 'participant_waiting') np.admission_state = 'waiting';
      if (type === 'participant_admitted') np.admission_state = 'admitted';
      const participants = { ...s.participants };
      const waiting = { ...s.waiting };
      if (np.admission_state === 'waiting') { waiting[id] = np; delete participants[id]; }
      else if (np.admission_state === 'admitted') { participants[id] = np; delete waiting[id]; }
      else { delete participants[id]; delete waiting[id]; }
      s = { ...s, participants, waiting };
      break;
    }
    case 'participant_left':
    case 'participant_removed':
    case 'participant_denied': {
      if (!pid) break;
      const id = String(pid);
      if (id === selfId) {
        const why = String(ev.reason || ev.admission_state || ev.participant?.admission_state || '');
        const admission = type === 'participant_denied' || why === 'denied' ? 'denied'
          : type === 'participant_removed' || /removed|banned|remove_participant/.test(why) ? 'removed'
          : /ended/.test(why) ? 'ended' : s.admission;
        if (admission !== s.admission) {
          s = { ...s, admission };
          effects.push({ type: admission, reason: ev.banned ? 'principal_banned' : (ev.reason || admission) });
        }
        break;
      }
      const participants = { ...s.participants };
      const waiting = { ...s.waiting };
      delete participants[id];
      delete waiting[id];
      s = { ...s, participants, waiting, activeSpeakers: s.activeSpeakers.filter((x) => x !== id) };
      break;
    }
    case 'permission_changed':
    case 'publish_changed': {
      if (!pid) break;
      const id = String(pid);
      const publish = ev.publish || {};
      if (id === selfId) {
        s = applySelfPermissions(s, publish, ev, effects);
      } else if (s.participants[id]) {
        const prev = s.participants[id];
        const v = Number(ev.participant_version ?? ev.version ?? prev.version);
        if (v < prev.version) break;
        const np = { ...prev, version: v, publish: { ...prev.publish, ...boolMap(publish) } };
        s = { ...s, participants: { ...s.participants, [id]: np } };
      }
      if (ev.command_id) s = withCommand(s, ev.command_id, { state: ev.applied ? 'applied' : 'committed', media_enforcement: ev.applied ? 'applied' : (ev.media_enforcement || 'pending') });
      break;
    }
    case 'command_committed': {
      const id = ev.command_id;
      if (!id) break;
      s = withCommand(s, id, { type: ev.command_type ?? s.commands[id]?.type, participant_id: ev.participant_id ?? s.commands[id]?.participant_id ?? null,
        state: 'committed', media_enforcement: ev.media_enforcement });
      break;
    }
    case 'mute_all': {
      // Everyone's microphone goes off once (moderators excepted); with allow_self_unmute people may unmute again.
      if (s.self.role !== 'host' && s.self.role !== 'cohost') effects.push({ type: 'mute_all', allowSelfUnmute: ev.allow_self_unmute !== false });
      s = { ...s, meeting: { ...(s.meeting || {}), mute_all: true, allow_self_unmute: ev.allow_self_unmute !== false } };
      break;
    }
    case 'participant_reconnecting':
    case 'transport_connected': {
      const id = String(ev.participant_id ?? ev.detail ?? '');
      if (!s.participants[id]) break;
      const connection = type === 'participant_reconnecting' ? 'reconnecting' : 'connected';
      s = { ...s, participants: { ...s.participants, [id]: { ...s.participants[id], connection } } };
      break;
    }
    case 'meeting_ending':
      s = { ...s, meeting: { ...(s.meeting || {}), status: 'ending' } };
      break;
    case 'command_state':
    case 'command_applied':
    case 'command_failed': {
      const id = ev.command_id;
      if (!id) break;
      const st = type === 'command_applied' ? 'applied' : type === 'command_failed' ? 'failed' : (ev.state || 'committed');
      s = withCommand(s, id, { state: st, media_enforcement: ev.media_enforcement || (st === 'applied' ? 'applied' : undefined) });
      // An applied command about our own permissions means the SFU enforces it now.
      if (st === 'applied' && String(ev.participant_id ?? s.commands[id]?.participant_id) === selfId) {
        const perms = { ...s.self.permissions };
        for (const k of ['audio', 'video', 'screen']) perms[k] = { ...perms[k], applied: true };
        s = { ...s, self: { ...s.self, permissions: perms } };
      }
      break;
    }
    case 'unmute_requested':
    case 'request_unmute': {
      const target = String(ev.participant_id ?? ev.target_participant_id ?? '');
      if (target === selfId) {
        s = { ...s, unmuteRequest: { by: ev.by ?? ev.requested_by ?? null, at: Date.now() } };
        effects.push({ type: 'unmute_requested' });
      }
      break;
    }
    case 'track_published':
    case 'track_unpublished': {
      if (!pid) break;
      const id = String(pid);
      const prev = s.participants[id];
      if (!prev) break;
      const source = ev.source || (ev.kind === 'audio' ? 'microphone' : 'camera');
      const tracks = { ...prev.tracks };
      if (type === 'track_published') tracks[source] = { ...(tracks[source] || {}), trackId: ev.track_id, kind: ev.kind, published: true };
      else delete tracks[source];
      s = { ...s, participants: { ...s.participants, [id]: { ...prev, tracks } } };
      break;
    }
    case 'subscription_paused':
    case 'subscription_resumed': {
      if (!ev.track_id || (pid && String(pid) !== selfId)) break;
      // notices may overtake each other on the way: per track the newest wins (a newer transport generation,
      // possibly on another SFU whose numbering starts again, or a higher sequence within one)
      const seq = Number(ev.sequence);
      const gen = Number(ev.transport_generation) || 0;
      const last = s.pausedSubscriptionSeq?.[ev.track_id];
      if (Number.isFinite(seq) && last && (gen < last.gen || (gen === last.gen && seq <= last.seq))) break;
      if (Number.isFinite(seq)) s = { ...s, pausedSubscriptionSeq: { ...(s.pausedSubscriptionSeq || {}), [ev.track_id]: { gen, seq } } };
      const paused = { ...(s.pausedSubscriptions || {}) };
      if (type === 'subscription_paused') {
        const m = /:(\d+)$/.exec(String(ev.track_id));
        paused[ev.track_id] = { participantId: String(ev.publisher_id ?? String(ev.track_id).replace(/:[^:]*$/, '')),
          source: m && m[1] === '2' ? 'screen' : 'camera', reason: ev.reason || 'bandwidth', since: Date.now() };
      } else {
        delete paused[ev.track_id];
      }
      s = { ...s, pausedSubscriptions: paused };
      break;
    }
    case 'active_speakers': {
      const list = ev.participant_ids || ev.speakers || (ev.detail ? [ev.detail] : []);
      const ids = list.map((x) => String(typeof x === 'object' ? x.participant_id : x)).filter(Boolean);
      s = { ...s, activeSpeakers: ids };
      break;
    }
    case 'connection_quality':
    case 'quality': {
      // the SFU scores excellent/good/poor/lost; the indicator's scale is good/fair/poor/lost
      const level = SERVER_LEVEL[ev.level || ev.quality] || ev.level || ev.quality;
      if (!pid || String(pid) === selfId) {
        const server = type === 'quality' && ev.sequence !== undefined ? { server: {
          lossPct: ev.loss_fraction != null ? 100 * ev.loss_fraction : null, rttMs: ev.rtt_ms >= 0 ? ev.rtt_ms : null,
          jitterMs: ev.jitter_ms >= 0 ? ev.jitter_ms : null, estimateBps: ev.estimate_bps >= 0 ? ev.estimate_bps : null,
          topSpatialLayer: ev.top_spatial_layer ?? null, at: Date.now() } } : {};
        s = { ...s, quality: { ...s.quality, serverLevel: level, ...server } };
      } else if (s.participants[String(pid)]) {
        const id = String(pid);
        s = { ...s, participants: { ...s.participants, [id]: { ...s.participants[id], quality: level } } };
      }
      break;
    }
    case 'participant_connection': {
      if (!pid || !s.participants[String(pid)]) break;
      const id = String(pid);
      s = { ...s, participants: { ...s.participants, [id]: { ...s.participants[id], connection: ev.state || ev.connection } } };
      break;
    }
    case 'recording_state':
    case 'recording_changed': {
      const state = ev.stop_requested ? 'finalizing' : (ev.state || ev.phase || 'idle');
      s = { ...s, recording: { state, job_id: ev.recording_job_id ?? ev.job_id } };
      break;
    }
    case 'meeting_updated':
    case 'meeting_locked':
    case 'meeting_unlocked': {
      const locked = typeof ev.locked === 'boolean' ? ev.locked : type === 'meeting_locked' ? true : type === 'meeting_unlocked' ? false : undefined;
      s = { ...s, meeting: { ...(s.meeting || {}), ...(ev.meeting || {}), ...(locked === undefined ? {} : { locked }) } };
      break;
    }
    case 'meeting_ended': {
      if (s.admission !== 'ended') {
        s = { ...s, admission: 'ended', meeting: { ...(s.meeting || {}), status: 'ended' } };
        effects.push({ type: 'ended' });
      }
      break;
    }
    default:
      break;
  }
  return { state: s, effects };
}

function boolMap(o) {
  const r = {};
  for (const k of ['audio', 'video', 'screen']) if (typeof o[k] === 'boolean') r[k] = o[k];
  return r;
}

function withCommand(s, id, patch) {
  const prev = s.commands[id] || {};
  const clean = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  // applied/failed are final: a late "committed" never moves a command back.
  if ((prev.state === 'applied' || prev.state === 'failed') && clean.state === 'committed') delete clean.state;
  if (prev.media_enforcement === 'applied' && clean.media_enforcement && clean.media_enforcement !== 'applied') delete clean.media_enforcement;
  // Enforcement applied = the command is applied (seed 000: committed, then applied once the SFU enforces it).
  if (clean.media_enforcement === 'applied' && clean.state !== 'failed') clean.state = 'applied';
  return { ...s, commands: { ...s.commands, [id]: { ...prev, ...clean } } };
}

function applySelf(s, p, effects) {
  const v = Number(p.participant_version ?? p.version ?? s.self.participant_version);
  if (v < s.self.participant_version) return s;
  let self = { ...s.self, participant_version: v };
  if (p.role) self.role = normalRole(p.role);
  if (p.display_name) self.display_name = p.display_name;
  let next = { ...s, self };
  const adm = p.admission_state;
  if (adm === 'admitted' && s.admission === 'waiting') { next.admission = 'admitted'; effects.push({ type: 'admitted' }); }
  if ((adm === 'denied' || adm === 'removed') && s.admission !== adm) { next.admission = adm; effects.push({ type: adm }); }
  if (p.publish) next = applySelfPermissions(next, p.publish, { version: v, applied: p.applied }, effects);
  return next;
}

/**
 * Our own publish permissions changed. A revoked source is enforced locally at once (effect
 * `enforce_off`); a re-granted one is only marked allowed: we never turn a microphone on by ourselves.
 */
function applySelfPermissions(s, publish, ev, effects) {
  const perms = { ...s.self.permissions };
  const v = Number(ev.participant_version ?? ev.version ?? 0);
  for (const k of ['audio', 'video', 'screen']) {
    if (typeof publish[k] !== 'boolean') continue;
    const prev = perms[k];
    if (v && prev.version && v < prev.version) continue;
    perms[k] = { allowed: publish[k], committed: true, applied: !!ev.applied, version: v || prev.version };
    if (prev.allowed && !publish[k]) effects.push({ type: 'enforce_off', source: k, reason: 'permission_revoked' });
    if (!prev.allowed && publish[k]) effects.push({ type: 'permission_granted', source: k });
  }
  return { ...s, self: { ...s.self, permissions: perms, participant_version: Math.max(s.self.participant_version, v) } };
}

/**
 * The events a `roster_delta` stands for (the server merged each participant's joins and departures of one batch
 * window): `replace` → `participant_joined` with the whole document (fields left out are at their usual value:
 * role attendee, admitted, every publish permission on), `remove` → `participant_left`. Unknown ops are skipped.
 * @param {{changes?: Array<{participant_id:string, op:string, fields?:Record<string,string>}>}} msg
 * @returns {Object[]}
 */
export function rosterDeltaEvents(msg) {
  const out = [];
  for (const ch of Array.isArray(msg?.changes) ? msg.changes : []) {
    if (!ch || typeof ch.participant_id !== 'string') continue;
    const f = ch.fields && typeof ch.fields === 'object' ? ch.fields : {};
    if (ch.op === 'remove') {
      out.push({ type: 'participant_left', participant_id: ch.participant_id, ...(f.reason ? { reason: f.reason } : {}) });
    } else if (ch.op === 'replace' || ch.op === 'patch') {
      const allowed = typeof f.publish === 'string' ? f.publish.split(',') : ['audio', 'video', 'screen'];
      out.push({
        type: 'participant_joined', participant_id: ch.participant_id, display_name: f.display_name ?? 'Guest',
        role: f.role ?? 'attendee', admission_state: f.admission_state ?? 'admitted',
        participant_version: Number(f.participant_version ?? 0),
        publish: { audio: allowed.includes('audio'), video: allowed.includes('video'), screen: allowed.includes('screen') },
      });
    }
  }
  return out;
}

/**
 * Fold a `roster_delta` into state: its events one after another through {@link applyEvent}.
 * @returns {{state:Object, effects:Object[], events:Object[]}}
 */
export function applyRosterDelta(state, msg) {
  const events = rosterDeltaEvents(msg);
  const effects = [];
  let s = state;
  for (const ev of events) {
    const r = applyEvent(s, ev);
    s = r.state;
    effects.push(...r.effects);
  }
  return { state: s, effects, events };
}

/**
 * Fold a `roster_summary` into state (paged roster): its counts, and its `changes` (only those of the participants
 * we watch, same form as a delta's) through {@link applyRosterDelta}. A summary without a cursor (the answer to
 * `roster_page`) carries counts only.
 * @returns {{state:Object, effects:Object[], events:Object[]}}
 */
export function applyRosterSummary(state, msg) {
  const r = applyRosterDelta(state, msg);
  const byRole = msg && typeof msg.by_role === 'object' && msg.by_role ? msg.by_role : {};
  const count = Number.isFinite(Number(msg?.count)) ? Number(msg.count) : state.roster?.count ?? null;
  const waiting = Number.isFinite(Number(msg?.waiting)) ? Number(msg.waiting) : state.roster?.waiting ?? null;
  return { ...r, state: { ...r.state, roster: { ...(r.state.roster || {}), paged: true, count, waiting, byRole } } };
}

/** The events that say who is in the meeting (a snapshot or roster answer replaces what they said). */
export const MEMBERSHIP_EVENTS = new Set(['participant_waiting', 'participant_admitted', 'participant_left', 'participant_removed', 'participant_denied']);

/**
 * Applies events again on top of a state made from a read model's answer (their effects already ran when they
 * first arrived): what the events said wins over an answer that may predate them.
 */
export function reapply(state, events) {
  let s = state;
  for (const ev of events) s = applyEvent(s, ev).state;
  return s;
}

/**
 * Seed a state from `GET /snapshot` (+ optional roster page). Replaces, never merges, what we knew:
 * after a snapshot the old event history is irrelevant.
 */
export function applySnapshot(state, snap, roster) {
  let s = { ...state, cursor: snap.control_cursor ?? state.cursor };
  const self = snap.self || {};
  s.meeting = { ...(s.meeting || {}), status: snap.meeting_status ?? s.meeting?.status, locked: snap.locked ?? s.meeting?.locked,
    mute_all: snap.mute_all ?? s.meeting?.mute_all, allow_self_unmute: snap.allow_self_unmute ?? s.meeting?.allow_self_unmute };
  if (snap.meeting_status === 'ended') s.admission = 'ended';
  if (self.admission_state === 'admitted' || self.admission_state === 'waiting' || self.admission_state === 'removed' || self.admission_state === 'denied') {
    s.admission = self.admission_state;
  }
  if (self.role) s.self = { ...s.self, role: normalRole(self.role) };
  if (self.participant_version) s.self = { ...s.self, participant_version: Number(self.participant_version) };
  const perms = { ...s.self.permissions };
  const map = { audio: 'audio_publish_allowed', video: 'video_publish_allowed', screen: 'screen_publish_allowed' };
  for (const [k, f] of Object.entries(map)) {
    if (typeof self[f] === 'boolean') perms[k] = { ...perms[k], allowed: self[f], committed: true };
  }
  s.self = { ...s.self, permissions: perms };
  s = applyHandSnapshot(s, snap);
  if (roster) {
    const list = roster.participants || roster.items || [];
    const participants = {};
    const waiting = {};
    for (const p of list) {
      const id = String(p.participant_id);
      if (id === s.self.participant_id) continue;
      const np = normalParticipant(p, state.participants[id] || state.waiting[id] || {});
      if (np.admission_state === 'waiting') waiting[id] = np;
      else if (np.admission_state === 'admitted') participants[id] = np;
    }
    if (s.roster?.paged) {
      // paged: the page is not everyone; keep the hosts and watched people we knew (the page replaces the rest)
      for (const [id, p] of Object.entries(state.participants)) {
        if (!participants[id] && (p.role === 'host' || p.role === 'cohost' || (s.roster.watch || []).includes(id))) participants[id] = p;
      }
    }
    s.participants = participants;
    s.waiting = waiting;
  }
  return s;
}

/** Is the local participant allowed to run host actions? */
export function isModerator(state) {
  return state.self.role === 'host' || state.self.role === 'cohost';
}
