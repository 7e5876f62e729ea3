// Signaling WebSocket (/v1/connect). Carries control events with cursors and the SDP exchange.
// When the socket drops, the client reconnects (jittered backoff, fresh connect ticket) and sends
// `resume {connect_ticket, resume_after}` with the cursor of the last event it applied, so the server can
// send only what was missed, or `snapshot_required` when it cannot.

import { Backoff } from './backoff.js';
import { CursorTracker } from './cursor.js';
import { rosterDeltaEvents } from './state.js';

/** Server error codes after which reconnecting cannot help. */
const FATAL = new Set(['removed', 'participant_removed', 'banned', 'rejoin_forbidden', 'principal_banned', 'unauthenticated', 'not_admitted', 'not_your_participant', 'meeting_ended', 'ended', 'denied', 'admission_denied', 'unauthorized', 'forbidden']);

/**
 * @typedef {Object} SignalingOptions
 * @property {() => Promise<{url:string, ticket:string}>} getTicket  fresh endpoint + single-use ticket
 * @property {(msg:Object) => void} onMessage       every non-event message (answer, offer, subscribed, …)
 * @property {(ev:Object, cursor:string|null) => void} onEvent   an event to apply, in order, exactly once (volatile events: cursor null)
 * @property {(msg:any) => void} [onRosterDelta]  a `roster_delta` to apply as one batch (else its events go to onEvent)
 * @property {(msg:any) => void} [onRosterSummary]  a `roster_summary` (paged roster: counts + the watched changes), in
 *           cursor order when it has a range; else its changes go to onEvent
 * @property {() => ({participant_ids:string[]}|null)} [rosterPage]  the page this client watches, sent with `join` and
 *           `resume` so a paged socket is paged before anything is replayed (null: not paged by the client)
 * @property {() => Promise<string|null>} onResync   fetch a snapshot, apply it, return its control_cursor
 * @property {(state:'connecting'|'open'|'reconnecting'|'failed'|'closed', detail?:Object) => void} onState
 * @property {typeof WebSocket} [WebSocketImpl]
 * @property {number} [pingIntervalMs=10000]
 * @property {number} [deadAfterMs=25000]   no message for this long (after a pong was ever seen) = dead
 * @property {number} [giveUpAfterMs=30000] reconnecting longer than this = failed (seed 000: 30 s grace)
 * @property {import('./backoff.js').BackoffOptions} [backoff]
 */

export class SignalingClient {
  /** @param {SignalingOptions} o */
  constructor(o) {
    this.o = o;
    this.WS = o.WebSocketImpl || globalThis.WebSocket;
    this.cursor = new CursorTracker();
    this.backoff = new Backoff(o.backoff || { baseMs: 200, maxMs: 3000 });
    /** @type {WebSocket|null} */ this.ws = null;
    this.closedByUser = false;
    this.everJoined = false;
    this.resyncing = false;
    /** events that arrived while a snapshot was being fetched */
    this.buffered = [];
    this.lastSeen = 0;
    this.pongSeen = false;
    this.reconnectStartedAt = 0;
    this.pingTimer = null;
    this.resumes = 0;
    /** resume_after values sent, newest last (diagnostics and tests) */
    this.resumeLog = [];
    /** set by a `redirect` message: the owner controller's socket */
    this.redirectUrl = null;
  }

  /** Open the socket and send `join` (first time) or `resume` (later). */
  async connect() {
    this.closedByUser = false;
    // Only the newest connect attempt may open a socket (a timer-driven retry can overlap reconnectNow()).
    const seq = this.connectSeq = (this.connectSeq || 0) + 1;
    this.o.onState(this.everJoined ? 'reconnecting' : 'connecting');
    let t;
    try {
      t = await this.o.getTicket();
    } catch (e) {
      if (seq !== this.connectSeq) return;
      const code = /** @type {any} */ (e)?.code;
      if (code && FATAL.has(code)) { this.o.onState('failed', { code, error: e }); return; }
      return this.#scheduleReconnect(e);
    }
    if (this.closedByUser || seq !== this.connectSeq) return;
    const ws = new this.WS(this.redirectUrl || t.url);
    this.ws = ws;
    ws.onopen = () => {
      this.lastSeen = Date.now();
      const resumeAfter = this.cursor.value;
      const page = this.o.rosterPage?.() || null;
      const paged = page ? { roster_page: page } : {};
      if (this.everJoined && resumeAfter) {
        this.resumes++;
        this.resumeLog.push(resumeAfter);
        this.#raw({ type: 'resume', connect_ticket: t.ticket, resume_after: resumeAfter, ...paged });
      } else {
        this.#raw({ type: 'join', connect_ticket: t.ticket, ...paged });
      }
      this.#startPing();
    };
    ws.onmessage = (m) => this.#onMessage(m.data);
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.#stopPing();
      this.ws = null;
      if (this.closedByUser) { this.o.onState('closed'); return; }
      const code = closeCode(e);
      if (code && FATAL.has(code)) { this.o.onState('failed', { code }); return; }
      this.#scheduleReconnect({ code: 'socket_closed', closeCode: e?.code });
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  /** @param {Object} msg */
  send(msg) {
    if (!this.ws || this.ws.readyState !== 1) return false;
    this.#raw(msg);
    return true;
  }

  get open() { return !!this.ws && this.ws.readyState === 1; }

  /** Leave for good. */
  close() {
    this.closedByUser = true;
    this.#stopPing();
    if (this.ws) {
      try { if (this.ws.readyState === 1) this.#raw({ type: 'leave' }); } catch { /* closing anyway */ }
      try { this.ws.close(1000, 'leave'); } catch { /* already closed */ }
    }
    this.ws = null;
  }

  /**
   * Drop the socket as if the network did (tests, a new ticket, "network changed"): forget it at once
   * (no waiting for the closing handshake) and reconnect with `resume`.
   */
  drop() {
    const ws = this.ws;
    if (!ws) return;
    this.ws = null;
    ws.onmessage = null;
    ws.onclose = null;
    try { ws.close(4000, 'client drop'); } catch { /* ignore */ }
    this.#stopPing();
    if (!this.closedByUser) this.#scheduleReconnect({ code: 'dropped' });
  }

  /**
   * Reconnect now, without the backoff pause: a new ticket is waiting (new transport generation) or the
   * network just came back. An open socket is dropped first; `resume` keeps the cursor.
   */
  reconnectNow() {
    if (this.closedByUser) return;
    const ws = this.ws;
    if (ws) {
      this.ws = null;
      ws.onmessage = null;
      ws.onclose = null;
      try { ws.close(4000, 'new transport'); } catch { /* ignore */ }
      this.#stopPing();
    }
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    if (!this.reconnectStartedAt) this.reconnectStartedAt = Date.now();
    this.connect();
  }

  #raw(msg) { /** @type {WebSocket} */ (this.ws).send(JSON.stringify(msg)); }

  async #scheduleReconnect(reason) {
    if (this.closedByUser) return;
    if (!this.reconnectStartedAt) this.reconnectStartedAt = Date.now();
    const giveUp = this.o.giveUpAfterMs ?? 30000;
    if (Date.now() - this.reconnectStartedAt > giveUp) {
      this.o.onState('failed', { code: 'reconnect_timeout', reason });
      return;
    }
    this.o.onState('reconnecting', { reason });
    const delay = this.backoff.next();
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => { this.reconnectTimer = null; if (!this.closedByUser) this.connect(); }, delay);
  }

  async #onMessage(data) {
    this.lastSeen = Date.now();
    let msg;
    try { msg = JSON.parse(data); } catch { return; }
    if (!msg || typeof msg.type !== 'string') return;
    switch (msg.type) {
      case 'pong':
        this.pongSeen = true;
        return;
      case 'joined': {
        // On the first join the server's cursor is where we start. On a resume we keep our own:
        // the server replays events after resume_after, and those must not look like duplicates.
        if (!this.everJoined || !this.cursor.value) this.cursor.reset(msg.cursor ?? null);
        this.everJoined = true;
        this.reconnectStartedAt = 0;
        this.backoff.reset();
        this.o.onState('open', { resumed: this.resumes > 0, cursor: msg.cursor, roster: msg.roster });
        this.o.onMessage(msg);
        return;
      }
      case 'snapshot_required':
        this.everJoined = true;
        this.reconnectStartedAt = 0;
        this.backoff.reset();
        await this.#resync();
        this.o.onState('open', { resumed: false, snapshot: true });
        return;
      case 'event':
        // Volatile events (speakers, quality, SFU hints) carry no cursor: applied as they come, never replayed.
        if (msg.cursor === undefined || msg.event?.volatile) { this.o.onEvent(msg.event || {}, null); return; }
        return this.#onEvent(msg);
      case 'roster_delta':
        // Joins and departures of one batch window in one message, standing for the events after `after` up to `cursor`.
        return this.#onEvent(msg);
      case 'roster_summary':
        // Paged roster: counts + the watched changes, standing (with a range) for the events after `after` up to `cursor`.
        if (msg.cursor === undefined) { this.#apply(msg); return; }
        return this.#onEvent(msg);
      case 'redirect':
        // Another controller owns the meeting: reconnect there (our ticket was used up; a fresh one follows).
        if (typeof msg.signaling_endpoint === 'string') this.redirectUrl = msg.signaling_endpoint;
        return;
      case 'error': {
        this.o.onMessage(msg);
        if (msg.code && FATAL.has(msg.code)) {
          this.closedByUser = true;
          this.o.onState('failed', { code: msg.code });
          try { this.ws?.close(1000); } catch { /* ignore */ }
        }
        return;
      }
      default:
        this.o.onMessage(msg);
    }
  }

  #onEvent(msg) {
    if (this.resyncing) { this.buffered.push(msg); return; }
    const verdict = isRange(msg) ? this.cursor.offerRange(msg.after, msg.cursor) : this.cursor.offer(msg.cursor);
    if (verdict === 'apply') this.#apply(msg);
    else if (verdict === 'gap' || verdict === 'epoch_changed') {
      this.buffered.push(msg);
      this.#resync();
    }
  }

  /** Replace what we know with a snapshot, then apply buffered events that are newer than it. */
  async #resync() {
    if (this.resyncing) return;
    this.resyncing = true;
    try {
      const c = await this.o.onResync();
      this.cursor.reset(c);
    } catch (e) {
      console.warn('snapshot failed', e);
    } finally {
      this.resyncing = false;
    }
    const pending = this.buffered;
    this.buffered = [];
    // After a snapshot the next event may not be exactly seq+1 of the snapshot when the server merged;
    // accept the first newer one, then continue strictly.
    for (const m of pending) {
      const v = isRange(m) ? this.cursor.offerRange(m.after, m.cursor) : this.cursor.offer(m.cursor);
      if (v === 'apply') this.#apply(m);
      else if (v === 'gap' || v === 'epoch_changed') {
        this.cursor.reset(m.cursor);
        this.#apply(m);
      }
    }
  }

  /** One event, or a roster delta (as one batch when the client takes them, else as its events). */
  #apply(msg) {
    if (msg.type === 'roster_summary' && this.o.onRosterSummary) { this.o.onRosterSummary(msg); return; }
    if (!isRange(msg)) { this.o.onEvent(msg.event || {}, msg.cursor); return; }
    if (msg.type === 'roster_delta' && this.o.onRosterDelta) { this.o.onRosterDelta(msg); return; }
    for (const ev of rosterDeltaEvents(msg)) this.o.onEvent(ev, msg.cursor);
  }

  #startPing() {
    this.#stopPing();
    const every = this.o.pingIntervalMs ?? 10000;
    const dead = this.o.deadAfterMs ?? 25000;
    this.pingTimer = setInterval(() => {
      if (!this.ws || this.ws.readyState !== 1) return;
      if (this.pongSeen && Date.now() - this.lastSeen > dead) { this.drop(); return; }
      try { this.#raw({ type: 'ping', ts: Date.now() }); } catch { /* closed */ }
    }, every);
  }

  #stopPing() { if (this.pingTimer) clearInterval(this.pingTimer); this.pingTimer = null; }
}

/** A message standing for a run of events (`after` → `cursor`): a roster delta or a paged roster summary. */
function isRange(m) { return m.type === 'roster_delta' || m.type === 'roster_summary'; }

/** Close reason codes: the server may put a stable code in the close reason text. */
function closeCode(e) {
  const r = (e && e.reason) || '';
  const m = /^[a-z_]+$/.exec(r.trim());
  return m ? m[0] : null;
}
