// Control-event cursors, "{controller_epoch}.{seq}" (seed 000). The client applies events in order,
// ignores duplicates (a resumed socket may resend what we already applied), and asks for a snapshot when
// it sees a gap or a new controller epoch it cannot continue from.

/**
 * @typedef {{epoch:number, seq:number}} Cursor
 */

/** @param {string|null|undefined} s @returns {Cursor|null} */
export function parseCursor(s) {
  if (typeof s !== 'string') return null;
  const m = /^(\d+)\.(\d+)$/.exec(s.trim());
  if (!m) return null;
  return { epoch: Number(m[1]), seq: Number(m[2]) };
}

/** @param {Cursor} c */
export function formatCursor(c) { return `${c.epoch}.${c.seq}`; }

/** Order of two cursors: epoch first, then seq. @param {Cursor} a @param {Cursor} b */
export function compareCursor(a, b) {
  return a.epoch !== b.epoch ? Math.sign(a.epoch - b.epoch) : Math.sign(a.seq - b.seq);
}

/**
 * Decides, event by event, whether to apply, skip, or resynchronise.
 * - `apply`: next event in order (or the first one after a snapshot)
 * - `duplicate`: at or before the cursor we hold: already applied
 * - `gap`: seq jumped in the same epoch; some reliable event is missing: take a snapshot
 * - `epoch_changed`: a new controller epoch; seqs restart, the server should have said snapshot_required,
 *   so we resynchronise too
 * - `invalid`: not a cursor at all (never applied, counted)
 */
export class CursorTracker {
  /** @param {string|null} [initial] */
  constructor(initial = null) {
    /** @type {Cursor|null} */
    this.current = parseCursor(initial);
    this.strict = true;
    this.invalid = 0;
  }

  /** The value to send as resume_after. @returns {string|null} */
  get value() { return this.current ? formatCursor(this.current) : null; }

  /** Reset to the cursor of a snapshot (or of `joined`). @param {string|null} s */
  reset(s) { this.current = parseCursor(s); }

  /**
   * @param {string} s cursor of an incoming event
   * @returns {'apply'|'duplicate'|'gap'|'epoch_changed'|'invalid'}
   */
  offer(s) {
    const c = parseCursor(s);
    if (!c) { this.invalid++; return 'invalid'; }
    const cur = this.current;
    if (!cur) { this.current = c; return 'apply'; }
    if (c.epoch < cur.epoch) return 'duplicate';
    if (c.epoch > cur.epoch) return 'epoch_changed';
    if (c.seq <= cur.seq) return 'duplicate';
    if (this.strict && c.seq !== cur.seq + 1) return 'gap';
    this.current = c;
    return 'apply';
  }

  /**
   * A message that stands for a run of events (a `roster_delta`: after `after` up to `to`). Its changes are
   * states (set or remove an entry), so applying it over some events of the run we already have is harmless:
   * it applies when we are anywhere from `after` to just before `to`.
   * @param {string} after @param {string} to
   * @returns {'apply'|'duplicate'|'gap'|'epoch_changed'|'invalid'}
   */
  offerRange(after, to) {
    const a = parseCursor(after);
    const c = parseCursor(to);
    if (!a || !c || a.epoch !== c.epoch || a.seq >= c.seq) { this.invalid++; return 'invalid'; }
    const cur = this.current;
    if (!cur) { this.current = c; return 'apply'; }
    if (c.epoch < cur.epoch) return 'duplicate';
    if (c.epoch > cur.epoch) return 'epoch_changed';
    if (c.seq <= cur.seq) return 'duplicate';
    if (this.strict && a.seq > cur.seq) return 'gap';
    this.current = c;
    return 'apply';
  }
}
