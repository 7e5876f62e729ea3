// Which remote participants are on the page shown: a stable order (join order, changed only by speaker
// promotion), the page index, and when each one last spoke. The geometry is layout.js's.

import { pageOf, promoteSpeakers } from './layout.js';

export class Paging {
  constructor() {
    /** @type {string[]} remote participant ids in page order */ this.order = [];
    this.page = 0;
    /** @type {Map<string, number>} */ this.lastSpoke = new Map();
    this.lastSize = 1;
    /** @type {string|null} */ this.promoted = null;
  }

  /**
   * Follow the roster (new people at the end, people who left taken out) and note who speaks now.
   * @param {string[]} pids @param {string[]} speakers
   */
  sync(pids, speakers) {
    const now = performance.now();
    const present = new Set(pids);
    const kept = this.order.filter((p) => present.has(p));
    const known = new Set(kept);
    for (const p of pids) if (!known.has(p)) kept.push(p);
    this.order = kept;
    for (const sp of speakers || []) if (present.has(sp)) this.lastSpoke.set(sp, now);
    for (const p of this.lastSpoke.keys()) if (!present.has(p)) this.lastSpoke.delete(p);
  }

  /**
   * The page of `size` shown now. A new dominant speaker is promoted onto it (once: someone who turns to
   * another page on purpose is not pulled back while the same person keeps talking).
   * @param {number} size @param {string[]} speakers  dominant first
   */
  view(size, speakers) {
    this.lastSize = Math.max(1, size);
    const dominant = speakers?.[0] ?? null;
    if (dominant && dominant !== this.promoted) {
      this.promoted = dominant;
      this.order = promoteSpeakers(this.order, this.page, this.lastSize, [dominant], this.lastSpoke);
    }
    const pg = pageOf(this.order, this.page, this.lastSize);
    this.page = pg.page;
    return pg;
  }

  /** @param {number} delta pages forward (negative: back) */
  turn(delta) {
    const pages = Math.max(1, Math.ceil(this.order.length / this.lastSize));
    this.page = Math.min(Math.max(0, this.page + delta), pages - 1);
  }
}
