// Area of interest (docs/web-client.md "Area of interest"): in a meeting created with
// subscription_mode 'area_of_interest' the client tells the server where it stands in the room, and the
// meeting's owner answers each change of the participants within its radius with an `interest` event.
//
//   client.on('interest', ({ participants }) => show(participants));
//   client.setPosition(120, 45);
//
// This file imports nothing; parley-client.js wires it to the signaling socket and the subscription.

/** Coordinates are within ±BOUND on each axis (the server refuses others with `invalid_position`). */
export const BOUND = 100000;
/** The server applies at most one position per participant every 100 ms; sending faster only gets dropped. */
export const POSITION_INTERVAL_MS = 100;

/**
 * @typedef {Object} InterestEvent
 * @property {string[]} participants  the participant ids within our radius, nearest first, at most the meeting's cap
 * @property {number} sequence        grows with every interest message; an older one is ignored
 */

export class AreaOfInterest {
  /**
   * @param {{send: (msg: Object) => boolean, onInterest: (e: InterestEvent) => void}} io
   *        send: one signaling message, false when the socket is not open; onInterest: our set changed
   */
  constructor(io) {
    this.io = io;
    /** @type {string[]|null} null until the first interest message: nothing is filtered yet */
    this.participants = null;
    this.sequence = -1;
    /** @type {{x: number, y: number}|null} the newest position not sent yet */
    this.pending = null;
    this.lastSentAt = -Infinity;
    /** @type {any} timer handle */ this.timer = null;
  }

  /**
   * Our position in the room. Sent at once, or (within 100 ms of the previous one) when the interval has
   * passed, the newest position winning; positions are volatile and never queued behind others.
   * @param {number} x @param {number} y
   */
  setPosition(x, y) {
    for (const v of [x, y]) {
      if (typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) > BOUND) {
        throw new RangeError(`a position is two finite numbers within ±${BOUND}`);
      }
    }
    this.pending = { x, y };
    const wait = this.lastSentAt + POSITION_INTERVAL_MS - performance.now();
    if (wait <= 0) this.#flush();
    else if (!this.timer) this.timer = setTimeout(() => { this.timer = null; this.#flush(); }, wait);
  }

  #flush() {
    const p = this.pending;
    if (!p) return;
    if (this.io.send({ type: 'position', x: p.x, y: p.y }) === false) return; // kept: sent again on the next call
    this.pending = null;
    this.lastSentAt = performance.now();
  }

  /**
   * An `interest` event from the server; true when it is newer than the one we have.
   * @param {{sequence?: unknown, participants?: unknown}} ev
   */
  applyInterest(ev) {
    const seq = Number(ev.sequence);
    if (!Number.isFinite(seq) || seq <= this.sequence || !Array.isArray(ev.participants)) return false;
    this.sequence = seq;
    this.participants = ev.participants.map(String);
    this.io.onInterest({ participants: [...this.participants], sequence: seq });
    return true;
  }

  /**
   * The subscription restricted to the interest set: a track id is `{publisher participant_id}:{mid}`. Before
   * the first interest message everything passes.
   * @template {{track_id: string}} T
   * @param {T[]} tracks
   * @returns {T[]}
   */
  filter(tracks) {
    const set = this.participants;
    if (!set) return tracks;
    return tracks.filter((t) => set.includes(String(t.track_id).split(':')[0]));
  }
}
