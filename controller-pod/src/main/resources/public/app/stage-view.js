// The stage's geometry and pager: sizes tiles with layout.js's best grid (the camera's aspect kept) and
// shows "Page 1 of 3 · 12 more" with previous / next buttons.

import { h, replace } from './dom.js';
import { bestGrid, tilesPerPage, DEFAULT_ASPECT } from './layout.js';

const GAP = 10;
/** Film strip tiles (speaker view, screen share): this high, as wide as the aspect says. */
export const STRIP_HEIGHT = 112;

/**
 * The cameras' aspect ratio: the first video that knows its size (a remote video's decoded size, our own
 * camera's track settings), else 16:9. Screens keep theirs in their own tile.
 * @param {Iterable<{video: HTMLVideoElement, stream: MediaStream|null, el: HTMLElement}>} tiles
 */
export function cameraAspect(tiles) {
  for (const t of tiles) {
    if (t.el.classList.contains('screen')) continue;
    if (t.video.videoWidth > 0 && t.video.videoHeight > 0) return t.video.videoWidth / t.video.videoHeight;
    const st = t.stream?.getVideoTracks()[0]?.getSettings?.();
    if (st?.width > 0 && st?.height > 0) return st.width / st.height;
  }
  return DEFAULT_ASPECT;
}

/**
 * Size the stage's tiles: a grid of equal tiles of the camera's aspect, as large as the stage allows.
 * @param {HTMLElement} stage @param {number} count @param {number} aspect
 */
export function fitStage(stage, count, aspect) {
  const w = stage.clientWidth, hgt = stage.clientHeight;
  const g = bestGrid(count, w, hgt, aspect, GAP);
  // half-width columns, each tile spanning two: a short last row can start half a tile in, so it is centred
  stage.style.gridTemplateColumns = g.cols ? `repeat(${2 * g.cols}, ${(g.tileWidth - GAP) / 2}px)` : '';
  stage.style.gridAutoRows = g.rows ? `${g.tileHeight}px` : '';
  const last = count - (g.rows - 1) * g.cols;
  [...stage.children].forEach((el, i) => {
    el.style.gridColumn = g.cols && i === (g.rows - 1) * g.cols && last < g.cols ? `${g.cols - last + 1} / span 2` : 'span 2';
  });
  stage.dataset.cols = String(g.cols);
  stage.dataset.rows = String(g.rows);
  return g;
}

/**
 * How many remote tiles a page holds: the user's choice, or (auto) as many as stay readable on this stage
 * (our own tile takes one cell).
 * @param {HTMLElement} stage @param {number|'auto'} choice @param {number} aspect
 */
export function gridPageSize(stage, choice, aspect) {
  if (choice !== 'auto') return Math.max(1, Number(choice));
  const w = stage.clientWidth, hgt = stage.clientHeight;
  if (!w || !hgt) return 8;
  return Math.max(1, tilesPerPage(w, hgt, { aspect, gap: GAP, minTileWidth: w < 600 ? 150 : 240, max: 25 }) - 1);
}

/** Remote tiles that fit the film strip's width (our own tile takes one). @param {HTMLElement} wrap @param {number} aspect */
export function stripPageSize(wrap, aspect) {
  const w = wrap.clientWidth || 800;
  return Math.max(1, Math.floor((w + GAP) / (STRIP_HEIGHT * aspect + GAP)) - 1);
}

/**
 * The pager: hidden on a single page.
 * @param {HTMLElement} el @param {{page:number, pages:number, hidden:number}} pg @param {(delta:number) => void} turn
 * @param {string} what  "people" / "videos" (screen-reader label)
 */
export function renderPager(el, pg, turn, what = 'videos') {
  el.hidden = pg.pages <= 1;
  if (el.hidden) { replace(el, []); return; }
  replace(el, [
    h('button', { class: 'small', 'data-testid': 'page-prev', 'data-focus': 'page-prev', disabled: pg.page === 0, 'aria-label': `Previous page of ${what}`, onclick: () => turn(-1) }, '‹ Prev'),
    h('span', { class: 'page-info', 'data-testid': 'page-info', 'aria-live': 'polite', 'data-page': String(pg.page), 'data-pages': String(pg.pages) },
      `Page ${pg.page + 1} of ${pg.pages} · `, h('strong', {}, `${pg.hidden} more`)),
    h('button', { class: 'small', 'data-testid': 'page-next', 'data-focus': 'page-next', disabled: pg.page >= pg.pages - 1, 'aria-label': `Next page of ${what}`, onclick: () => turn(1) }, 'Next ›'),
  ]);
}
