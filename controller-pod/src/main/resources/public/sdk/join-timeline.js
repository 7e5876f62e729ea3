// Join timeline: when each step of one join happened, from "admitted" to the first decoded remote video frame
// (docs/web-client.md "Join timeline"). The client marks the signaling steps; the subscribe peer connection's own
// events give ICE and DTLS, and a short fast getStats() poll (only while a join is under way) gives the first RTP
// packet, the first assembled frame and the first decoded frame. Nothing here is on the media path.

/** The steps of a join, in the order they normally happen. Times are ms after `admitted`. */
export const JOIN_STEPS = Object.freeze([
  'admitted',            // the client learned it is admitted (join answer, or the waiting-room poll)
  'transport_requested', // POST …/transport sent to the controller
  'transport_answered',  // its answer: generation, SFU, connect ticket
  'socket_joined',       // signaling socket open and the server said `joined` (the ticket was accepted)
  'offer_sent',          // the subscribe offer left on the socket
  'answer_received',     // the SFU's subscribe answer arrived and is handed to setRemoteDescription
  'ice_connected',       // subscribe connection: ICE connected
  'dtls_connected',      // subscribe connection: DTLS done (connectionState `connected`)
  'first_rtp',           // first video RTP packet received
  'first_frame',         // first complete video frame assembled (the decoder waits for a keyframe)
  'first_decoded',       // first remote video frame decoded
]);

/** How often the join poll reads getStats() (ms): the resolution of the last three steps. */
export const POLL_MS = 15;
/** The poll gives up after this long without a decoded frame (the timeline stays incomplete). */
export const GIVE_UP_MS = 30000;

/**
 * @typedef {Object} JoinTimelineSummary
 * @property {boolean} complete      every step seen, first_decoded included
 * @property {number|null} totalMs   admitted → first decoded remote frame
 * @property {{step:string, atMs:number|null, deltaMs:number|null}[]} steps   atMs after admitted; deltaMs since the step before
 * @property {Object<string, number>} extra   other marks (ms after admitted): publish side, join click, roster
 * @property {{pliCount:number, firCount:number, nackCount:number}|null} keyframeRequests  sent by our receiver before the first decode
 */

export class JoinTimeline {
  /** @param {{now?:() => number, onComplete?:(s:JoinTimelineSummary) => void}} [o] */
  constructor(o = {}) {
    this.now = o.now || (() => performance.now());
    this.onComplete = o.onComplete || null;
    /** @type {Object<string, number>} absolute times (performance.now()) of every mark; first one wins */
    this.marks = {};
    /** @type {{pliCount:number, firCount:number, nackCount:number}|null} */
    this.keyframeRequests = null;
    this.reported = false;
    /** @type {any} */ this.pollTimer = null;
  }

  /** Record `step` now (or at `at`); a later mark of the same step is ignored (retries, renegotiations). */
  mark(step, at = this.now()) {
    if (this.marks[step] != null) return;
    this.marks[step] = at;
    if (step === 'first_decoded') this.#finish();
  }

  /**
   * Follow a subscribe connection until the first decoded video frame. A new transport generation during the join
   * hands over to its connection (the steps already marked stay: the first time counts).
   */
  watch(pc) {
    if (this.watched === pc || this.reported) return;
    clearTimeout(this.pollTimer);
    this.watched = pc;
    const ice = () => { const s = pc.iceConnectionState; if (s === 'connected' || s === 'completed') this.mark('ice_connected'); };
    const conn = () => { if (pc.connectionState === 'connected') { this.mark('ice_connected'); this.mark('dtls_connected'); } };
    pc.addEventListener('iceconnectionstatechange', ice);
    pc.addEventListener('connectionstatechange', conn);
    const started = this.now();
    const poll = async () => {
      this.pollTimer = null;
      if (this.reported || this.watched !== pc || pc.connectionState === 'closed') return;
      try { this.#read(await pc.getStats()); } catch { /* closed meanwhile */ }
      if (!this.reported && this.now() - started < GIVE_UP_MS) this.pollTimer = setTimeout(poll, POLL_MS);
    };
    this.pollTimer = setTimeout(poll, POLL_MS);
  }

  /** @param {RTCStatsReport} report */
  #read(report) {
    const now = this.now();
    report.forEach((s) => {
      if (s.type !== 'inbound-rtp' || s.kind !== 'video') return;
      const at = statsTime(s.timestamp, now);
      if ((s.packetsReceived ?? 0) > 0) this.mark('first_rtp', at);
      if ((s.framesReceived ?? 0) > 0 || (s.framesDecoded ?? 0) > 0) this.mark('first_frame', at);
      if ((s.framesDecoded ?? 0) > 0 && this.marks.first_decoded == null) {
        this.keyframeRequests = { pliCount: s.pliCount ?? 0, firCount: s.firCount ?? 0, nackCount: s.nackCount ?? 0 };
        this.mark('first_decoded', at);
      }
    });
  }

  #finish() {
    if (this.reported) return;
    this.reported = true;
    clearTimeout(this.pollTimer);
    const s = this.summary();
    console.info(`parley: join timeline ${formatTimeline(s)}`);
    this.onComplete?.(s);
  }

  /** Stop polling (the client left, or a new generation replaced the watched connection). */
  stop() { clearTimeout(this.pollTimer); this.pollTimer = null; this.reported = true; }

  /** @returns {JoinTimelineSummary} */
  summary() {
    const t0 = this.marks.admitted;
    const rel = (t) => (t == null || t0 == null ? null : Math.round((t - t0) * 10) / 10);
    let prev = null;
    const steps = JOIN_STEPS.map((step) => {
      const atMs = rel(this.marks[step]);
      const deltaMs = atMs != null && prev != null ? Math.round((atMs - prev) * 10) / 10 : null;
      if (atMs != null) prev = atMs;
      return { step, atMs, deltaMs };
    });
    /** @type {Object<string, number>} */
    const extra = {};
    for (const [k, t] of Object.entries(this.marks)) if (!JOIN_STEPS.includes(k)) extra[k] = /** @type {number} */ (rel(t));
    const complete = steps.every((s) => s.atMs != null);
    return { complete, totalMs: rel(this.marks.first_decoded), steps, extra, keyframeRequests: this.keyframeRequests };
  }
}

/**
 * When a stats snapshot was taken, on the performance.now() clock: a busy page may resolve getStats() long after
 * (hundreds of ms on a loaded machine), so its own timestamp (ms since the epoch in Chromium) is the better time.
 * Falls back to `now` when the timestamp is missing or not plausibly on that clock.
 */
export function statsTime(timestamp, now) {
  const origin = globalThis.performance?.timeOrigin;
  if (typeof timestamp !== 'number' || !origin || timestamp < origin) return now;
  const t = timestamp - origin;
  return t <= now + 5 && t > now - GIVE_UP_MS ? t : now;
}

/** One line for logs: `total 512 ms: transport_requested +3 transport_answered +40 …`. */
export function formatTimeline(s) {
  const parts = s.steps.filter((x) => x.step !== 'admitted').map((x) => `${x.step} ${x.deltaMs == null ? '?' : '+' + x.deltaMs}`);
  return `total ${s.totalMs ?? '?'} ms: ${parts.join(' ')}${s.keyframeRequests ? ` (pli ${s.keyframeRequests.pliCount})` : ''}`;
}
