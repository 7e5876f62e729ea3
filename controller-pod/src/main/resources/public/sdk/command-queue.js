// Commands pressed while the client is offline (seed 000, weak network / offline):
// - each keeps the idempotency key it was given when pressed, so a retry can never run it twice;
// - each has an expiry; an expired command is dropped and the person is told;
// - commands that would start sending or recording ("unmute", "start recording", turning on camera or
//   screen) are never replayed after a reconnect: the person must press them again, knowingly.

import { idempotencyKey } from './ids.js';

/**
 * @typedef {Object} QueuedCommand
 * @property {Object} body          the command body (type, participant_id, expected_participant_version, …)
 * @property {string} key           idempotency key, fixed at press time
 * @property {number} createdAt     ms
 * @property {number} expiresAt     ms
 * @property {(r:{ok:boolean, result?:any, error?:any, dropped?:string}) => void} [settle]
 */

/**
 * True for commands that must not run later than the moment they were pressed.
 * @param {Object} body
 * @param {string} [selfId] our own participant id
 */
export function isNeverReplayed(body, selfId) {
  if (!body) return false;
  if (body.type === 'start_recording') return true;
  if (body.type === 'unmute' || body.type === 'self_unmute') return true;
  if (body.type === 'set_publish') {
    // Turning any source ON for ourselves is an "unmute": it would start sending unexpectedly.
    const self = !body.participant_id || body.participant_id === selfId;
    const turnsOn = ['audio', 'video', 'screen'].some((k) => body[k] === true || body.publish?.[k] === true);
    return self && turnsOn;
  }
  return false;
}

export class CommandQueue {
  /**
   * @param {Object} [opts]
   * @param {number} [opts.ttlMs=30000]     how long a pressed command stays valid
   * @param {() => number} [opts.now]
   * @param {() => (string|undefined)} [opts.selfId]
   */
  constructor(opts = {}) {
    this.ttlMs = opts.ttlMs ?? 30000;
    this.now = opts.now || (() => Date.now());
    this.selfId = opts.selfId || (() => undefined);
    /** @type {QueuedCommand[]} */
    this.pending = [];
  }

  /**
   * Create a command entry at press time (key and expiry fixed now).
   * @param {Object} body @param {Object} [o] @param {number} [o.ttlMs] @param {string} [o.key]
   * @returns {QueuedCommand}
   */
  make(body, o = {}) {
    const t = this.now();
    return { body, key: o.key || idempotencyKey('cmd-' + body.type), createdAt: t, expiresAt: t + (o.ttlMs ?? this.ttlMs) };
  }

  /** Keep a command for later (we are offline). @param {QueuedCommand} c */
  enqueue(c) { this.pending.push(c); return c; }

  /**
   * Called once the client is connected again. Returns what to send now (same keys) and what was
   * dropped, each with a reason code: `command_expired` or `not_replayed`.
   * @returns {{send: QueuedCommand[], dropped: {cmd: QueuedCommand, reason: string}[]}}
   */
  drainForReconnect() {
    const t = this.now();
    const send = [];
    const dropped = [];
    for (const c of this.pending) {
      if (t >= c.expiresAt) dropped.push({ cmd: c, reason: 'command_expired' });
      else if (isNeverReplayed(c.body, this.selfId())) dropped.push({ cmd: c, reason: 'not_replayed' });
      else send.push(c);
    }
    this.pending = [];
    return { send, dropped };
  }

  /** Is the command still valid to send (same key) after a failed try? @param {QueuedCommand} c */
  alive(c) { return this.now() < c.expiresAt; }
}
