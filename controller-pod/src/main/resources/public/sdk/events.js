// Typed events of the SDK: `client.on('participant_joined', (e) => …)` next to the observable store.
//
// Two sources feed them. Control events from the server (in cursor order, exactly once) give the
// participant events; changes of the client's own state give connection, admission, media, command and
// notice events, so a command applied by polling and one applied by an event look the same.
// This file imports nothing: it is type-checked on its own with every strict option (tsconfig.events.json).

/** @typedef {'idle'|'connecting'|'connected'|'reconnecting'|'failed'|'closed'} ConnectionStateName */
/** @typedef {'microphone'|'camera'|'screen'} MediaSource */
/** @typedef {{type: string, participant_id?: string|number, [field: string]: unknown}} ControlEvent */

/**
 * @typedef {Object} ParticipantEvent
 * @property {string} participantId
 * @property {string|null} displayName
 * @property {string|null} role
 * @property {ControlEvent} event   the server's event as received
 */

/**
 * @typedef {Object} ParticipantGoneEvent
 * @property {string} participantId
 * @property {string|null} reason
 * @property {ControlEvent} event
 */

/**
 * @typedef {Object} CommandEvent
 * @property {string} commandId
 * @property {string|null} type               e.g. 'set_publish', 'remove_participant'
 * @property {string|null} participantId      the participant it is about, if any
 * @property {'committed'|'applied'|'failed'|string} state
 * @property {string|null} mediaEnforcement   'pending' until every SFU enforced it, then 'applied'
 */

/**
 * The events `ParleyClient.on` knows, by name → what the handler receives.
 * @typedef {Object} ParleyEventMap
 * @property {ParticipantEvent} participant_joined      someone joined (or was let in) while we are in the meeting
 * @property {ParticipantEvent} participant_waiting     someone is in the waiting room (hosts see these)
 * @property {ParticipantEvent} participant_admitted    a host let someone in
 * @property {ParticipantGoneEvent} participant_left
 * @property {ParticipantGoneEvent} participant_removed
 * @property {ParticipantGoneEvent} participant_denied
 * @property {CommandEvent} command_applied             a command took effect (media plane included)
 * @property {CommandEvent} command_failed
 * @property {{source: MediaSource, on: boolean, reason: string|null, previous: {on: boolean, reason: string|null}}} media_state
 *           our own microphone, camera or screen turned on or off, and why ('self', 'permission_revoked', …)
 * @property {{state: ConnectionStateName, previous: ConnectionStateName, reason: string|null}} connection_state
 * @property {{state: string, previous: string}} admission   none → joining → waiting → admitted | denied | removed | ended | locked | left
 * @property {{state: 'connecting'|'open'|'reconnecting'|'failed'|'closed', resumed: boolean, code: string|null}} signaling
 *           the signaling socket; `open` = the server answered `joined` (a fresh join or a resume)
 * @property {{level: string, code: string, text: string}} notice   every refusal or warning the UI should show
 * @property {{event: ControlEvent, cursor: string|null}} event     every control event applied, as received
 * @property {{participants: string[], sequence: number}} interest  area of interest: who is within our radius now (aoi.js)
 * @property {{participantId: string, displayName: string|null, raisedAt: string|null, event: ControlEvent}} hand_raised
 *           large meetings: someone raised a hand (the queue is `state.raisedHands`, first raised first)
 * @property {{participantId: string, reason: string|null, event: ControlEvent}} hand_lowered
 *           a hand went down: 'lowered' (by its owner), 'lowered_by_moderator' or 'allowed_to_speak'
 * @property {{complete: boolean, totalMs: number|null, steps: {step: string, atMs: number|null, deltaMs: number|null}[], extra: Object<string, number>, keyframeRequests: {pliCount: number, firCount: number, nackCount: number}|null}} join_timeline
 *           the first remote video frame of this join was decoded: where the time went since admission (join-timeline.js)
 */

/**
 * A small event emitter. A handler that throws is reported and does not stop the other handlers (nor
 * the client that emits); handlers added or removed during an emit take effect from the next emit.
 * @template {Record<string, any>} M  event name → payload
 */
export class Emitter {
  /** @param {{onError?: (err: unknown, type: string) => void}} [opts] */
  constructor(opts = {}) {
    /** @type {Map<keyof M, Set<(payload: any) => void>>} */
    this.handlers = new Map();
    /** @type {(err: unknown, type: string) => void} */
    this.onError = opts.onError || ((err, type) => console.error(`parley: '${type}' handler failed`, err));
  }

  /**
   * @template {keyof M & string} K
   * @param {K} type
   * @param {(payload: M[K]) => void} handler
   * @returns {() => void} removes the handler
   */
  on(type, handler) {
    if (typeof handler !== 'function') throw new TypeError(`handler for '${type}' must be a function`);
    let set = this.handlers.get(type);
    if (!set) this.handlers.set(type, (set = new Set()));
    set.add(handler);
    return () => this.off(type, handler);
  }

  /**
   * Like `on`, removed after its first call.
   * @template {keyof M & string} K
   * @param {K} type
   * @param {(payload: M[K]) => void} handler
   * @returns {() => void}
   */
  once(type, handler) {
    /** @param {M[K]} payload */
    const wrapper = (payload) => { this.off(type, wrapper); handler(payload); };
    return this.on(type, wrapper);
  }

  /**
   * @template {keyof M & string} K
   * @param {K} type
   * @param {(payload: M[K]) => void} handler
   */
  off(type, handler) {
    const set = this.handlers.get(type);
    if (!set) return;
    set.delete(handler);
    if (set.size === 0) this.handlers.delete(type);
  }

  /**
   * @template {keyof M & string} K
   * @param {K} type
   * @param {M[K]} payload
   */
  emit(type, payload) {
    const set = this.handlers.get(type);
    if (!set) return;
    for (const h of [...set]) {
      try { h(payload); } catch (err) { this.onError(err, type); }
    }
  }

  /** @param {keyof M & string} type @returns {number} handlers registered for `type` */
  listenerCount(type) { return this.handlers.get(type)?.size ?? 0; }
}

/** @typedef {{[K in keyof ParleyEventMap]: [K, ParleyEventMap[K]]}[keyof ParleyEventMap]} TypedEvent */

const PARTICIPANT_IN = new Set(['participant_joined', 'participant_waiting', 'participant_admitted']);
const PARTICIPANT_OUT = new Set(['participant_left', 'participant_removed', 'participant_denied']);

/**
 * The typed events one control event from the server gives (always `event`, plus a participant event).
 * @param {ControlEvent} ev
 * @param {string|null} cursor
 * @returns {TypedEvent[]}
 */
export function eventsFromControl(ev, cursor) {
  /** @type {TypedEvent[]} */
  const out = [['event', { event: ev, cursor }]];
  const doc = asRecord(ev.participant) ?? ev; // flat or under `participant`
  const pid = doc.participant_id ?? ev.participant_id;
  if (pid == null) return out;
  const participantId = String(pid);
  if (PARTICIPANT_IN.has(ev.type)) {
    const type = /** @type {'participant_joined'|'participant_waiting'|'participant_admitted'} */ (ev.type);
    out.push([type, { participantId, displayName: str(doc.display_name), role: str(doc.role), event: ev }]);
  } else if (PARTICIPANT_OUT.has(ev.type)) {
    const type = /** @type {'participant_left'|'participant_removed'|'participant_denied'} */ (ev.type);
    out.push([type, { participantId, reason: str(ev.reason), event: ev }]);
  } else if (ev.type === 'hand_raised') {
    out.push(['hand_raised', { participantId, displayName: str(ev.display_name), raisedAt: str(ev.raised_at), event: ev }]);
  } else if (ev.type === 'hand_lowered') {
    out.push(['hand_lowered', { participantId, reason: str(ev.reason), event: ev }]);
  }
  return out;
}

/** @type {ReadonlyArray<[string, MediaSource]>} state key → source */
const MEDIA_KEYS = [['mic', 'microphone'], ['camera', 'camera'], ['screen', 'screen']];

/**
 * The typed events a change of the client's state gives: connection, admission, our own media,
 * commands that became applied or failed, new notices.
 * @param {Record<string, any>} prev
 * @param {Record<string, any>} next
 * @returns {TypedEvent[]}
 */
export function eventsFromState(prev, next) {
  /** @type {TypedEvent[]} */
  const out = [];
  if (prev.connection !== next.connection) {
    out.push(['connection_state', { state: next.connection, previous: prev.connection, reason: str(next.connectionReason) }]);
  }
  if (prev.admission !== next.admission) {
    out.push(['admission', { state: String(next.admission), previous: String(prev.admission) }]);
  }
  if (prev.self !== next.self && prev.self && next.self) {
    for (const [key, source] of MEDIA_KEYS) {
      const a = prev.self[key] || {};
      const b = next.self[key] || {};
      if (!!a.on !== !!b.on || (a.reason ?? null) !== (b.reason ?? null)) {
        out.push(['media_state', { source, on: !!b.on, reason: str(b.reason), previous: { on: !!a.on, reason: str(a.reason) } }]);
      }
    }
  }
  if (prev.commands !== next.commands && next.commands) {
    for (const [id, c] of Object.entries(next.commands)) {
      const was = (prev.commands || {})[id];
      const outcome = commandOutcome(c);
      if (outcome && outcome !== commandOutcome(was)) {
        out.push([outcome === 'applied' ? 'command_applied' : 'command_failed', {
          commandId: id, type: str(c.type), participantId: str(c.participant_id), state: String(c.state),
          mediaEnforcement: str(c.media_enforcement),
        }]);
      }
    }
  }
  if (prev.notices !== next.notices && Array.isArray(next.notices)) {
    const seen = new Set((prev.notices || []).map((/** @type {{id: unknown}} */ n) => n.id));
    for (const n of next.notices) {
      if (!seen.has(n.id)) out.push(['notice', { level: String(n.level), code: String(n.code), text: String(n.text) }]);
    }
  }
  return out;
}

/**
 * 'applied' once the command is in force: committed when the media plane need not enforce it
 * (`not_required`: admit, lock), else when the SFUs applied it; 'failed'; null while on its way.
 * @param {any} c
 * @returns {'applied'|'failed'|null}
 */
export function commandOutcome(c) {
  if (!c) return null;
  if (c.state === 'failed' || c.media_enforcement === 'failed') return 'failed';
  if (c.state === 'applied' || c.media_enforcement === 'applied') return 'applied';
  return c.state === 'committed' && c.media_enforcement === 'not_required' ? 'applied' : null;
}

/** @param {unknown} v @returns {string|null} */
function str(v) { return v == null ? null : String(v); }

/** @param {unknown} v @returns {Record<string, any>|null} */
function asRecord(v) { return v && typeof v === 'object' ? /** @type {Record<string, any>} */ (v) : null; }
