// Grid geometry and video paging: pure functions (no DOM), so node's test runner checks them
// (controller-pod/src/test/resources/app/layout.test.mjs).

/** The aspect ratio a tile assumes before its camera says otherwise (track settings / video size). */
export const DEFAULT_ASPECT = 16 / 9;

/**
 * The rows × columns that show `count` tiles of aspect `aspect` (width / height) as large as possible in a
 * `width` × `height` box with `gap` pixels between tiles. Tiles keep the aspect (letterboxing the box, never
 * cropping the camera); among equal sizes the arrangement with fewer empty cells wins.
 * @param {number} count @param {number} width @param {number} height @param {number} [aspect] @param {number} [gap]
 * @returns {{cols:number, rows:number, tileWidth:number, tileHeight:number}}
 */
export function bestGrid(count, width, height, aspect = DEFAULT_ASPECT, gap = 0) {
  const n = Math.max(0, Math.floor(count));
  const a = aspect > 0 && Number.isFinite(aspect) ? aspect : DEFAULT_ASPECT;
  if (n === 0 || !(width > 0) || !(height > 0)) return { cols: 0, rows: 0, tileWidth: 0, tileHeight: 0 };
  let best = null;
  for (let cols = 1; cols <= n; cols++) {
    const rows = Math.ceil(n / cols);
    if (cols > 1 && (cols - 1) * rows >= n) continue;          // a column fewer holds the same: not a new arrangement
    const cellW = (width - (cols - 1) * gap) / cols;
    const cellH = (height - (rows - 1) * gap) / rows;
    if (cellW <= 0 || cellH <= 0) break;
    const tileWidth = Math.min(cellW, cellH * a);
    const tileHeight = tileWidth / a;
    const empty = cols * rows - n;
    if (!best || tileWidth > best.tileWidth + 0.5 || (Math.abs(tileWidth - best.tileWidth) <= 0.5 && empty < best.empty)) {
      best = { cols, rows, tileWidth, tileHeight, empty };
    }
  }
  if (!best) return { cols: 1, rows: n, tileWidth: 0, tileHeight: 0 };
  const tileWidth = Math.floor(best.tileWidth);
  return { cols: best.cols, rows: best.rows, tileWidth, tileHeight: Math.floor(tileWidth / a) };
}

/**
 * How many tiles fit a page: the largest count (at most `max`) whose tiles stay at least `minTileWidth` wide.
 * Never less than 1.
 * @param {number} width @param {number} height @param {{aspect?:number, gap?:number, minTileWidth?:number, max?:number}} [o]
 */
export function tilesPerPage(width, height, o = {}) {
  const { aspect = DEFAULT_ASPECT, gap = 0, minTileWidth = 240, max = 25 } = o;
  let fit = 1;
  for (let n = 1; n <= max; n++) {
    if (bestGrid(n, width, height, aspect, gap).tileWidth >= minTileWidth) fit = n; else break;
  }
  return fit;
}

/**
 * Pages of `size` over `order` (remote participant ids in their order): page `page` (clamped) with the
 * number of pages and how many are not on it.
 * @param {string[]} order @param {number} page @param {number} size
 * @returns {{page:number, pages:number, ids:string[], hidden:number}}
 */
export function pageOf(order, page, size) {
  const s = Math.max(1, Math.floor(size));
  const pages = Math.max(1, Math.ceil(order.length / s));
  const p = Math.min(Math.max(0, Math.floor(page) || 0), pages - 1);
  const ids = order.slice(p * s, p * s + s);
  return { page: p, pages, ids, hidden: order.length - ids.length };
}

/**
 * Active-speaker promotion: a speaker who is not on the page shown takes the place (in `order`) of the
 * page's participant who spoke longest ago (never spoke = longest ago; ties: the last tile). Returns a new
 * order, or the same array when nothing moves (the speaker is on the page already or unknown).
 * @param {string[]} order @param {number} page @param {number} size @param {string[]} speakers  dominant first
 * @param {Map<string, number>|Object<string, number>} lastSpoke  pid -> when it last spoke (any clock)
 */
export function promoteSpeakers(order, page, size, speakers, lastSpoke) {
  const when = (pid) => (lastSpoke instanceof Map ? lastSpoke.get(pid) : lastSpoke?.[pid]) ?? -Infinity;
  let out = order;
  const { page: p, ids } = pageOf(order, page, size);
  const start = p * Math.max(1, Math.floor(size));
  const protectedIds = new Set();
  for (const sp of speakers || []) {
    const at = out.indexOf(sp);
    if (at < 0) continue;
    if (at >= start && at < start + ids.length) { protectedIds.add(sp); continue; }
    // the visible participant who spoke longest ago (not one promoted or speaking now)
    let victim = -1;
    for (let i = start; i < start + ids.length; i++) {
      if (protectedIds.has(out[i]) || (speakers || []).includes(out[i])) continue;
      if (victim < 0 || when(out[i]) <= when(out[victim])) victim = i;
    }
    if (victim < 0) break;
    if (out === order) out = order.slice();
    [out[victim], out[at]] = [out[at], out[victim]];
    protectedIds.add(sp);
  }
  return out;
}
