// node --test: the app's layout.js — grid geometry that keeps the camera's aspect ratio, page size, paging and
// active-speaker promotion.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

const { bestGrid, tilesPerPage, pageOf, promoteSpeakers } = await import(pathToFileURL(`${process.env.PARLEY_APP_DIR}/layout.js`).href);

const ratio = (g) => g.tileWidth / g.tileHeight;

test('three people get 16:9 tiles, not three tall strips: one row on a wide stage, 2 × 2 on a laptop stage', () => {
  const wide = bestGrid(3, 1600, 420, 16 / 9, 10);
  assert.deepEqual([wide.cols, wide.rows], [3, 1]);
  assert.ok(Math.abs(ratio(wide) - 16 / 9) < 0.02, `16:9 kept: ${wide.tileWidth}x${wide.tileHeight}`);
  const laptop = bestGrid(3, 1240, 560, 16 / 9, 10);
  assert.deepEqual([laptop.cols, laptop.rows], [2, 2], '2 × 2 tiles (489 wide) beat 3 × 1 (406 wide) here');
  assert.ok(Math.abs(ratio(laptop) - 16 / 9) < 0.02);
  assert.ok(laptop.tileWidth * 2 + 10 <= 1240 && laptop.tileHeight * 2 + 10 <= 560, 'fits the stage');
  assert.ok(laptop.tileHeight < laptop.tileWidth, 'landscape, not a strip');
});

test('a square stage puts four in 2 × 2 and a tall phone stacks them', () => {
  assert.deepEqual((({ cols, rows }) => [cols, rows])(bestGrid(4, 1000, 600, 16 / 9, 0)), [2, 2]);
  const phone = bestGrid(3, 360, 640, 16 / 9, 8);
  assert.deepEqual([phone.cols, phone.rows], [1, 3]);
  assert.ok(phone.tileWidth <= 360 && phone.tileHeight * 3 + 16 <= 640);
});

test('the chosen grid is the largest tile of every rows × columns (brute force over random boxes)', () => {
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let i = 0; i < 300; i++) {
    const n = 1 + Math.floor(rnd() * 30), w = 200 + rnd() * 1800, h = 150 + rnd() * 1000, gap = Math.floor(rnd() * 12);
    const aspect = [16 / 9, 4 / 3, 1, 9 / 16][i % 4];
    const g = bestGrid(n, w, h, aspect, gap);
    assert.ok(g.cols * g.rows >= n, 'holds every tile');
    assert.ok(g.cols * g.tileWidth + (g.cols - 1) * gap <= w + 1e-6 && g.rows * g.tileHeight + (g.rows - 1) * gap <= h + 1e-6, 'fits');
    assert.ok(Math.abs(g.tileWidth / aspect - g.tileHeight) <= 1, 'aspect kept');
    for (let c = 1; c <= n; c++) {
      const r = Math.ceil(n / c);
      const tw = Math.min((w - (c - 1) * gap) / c, ((h - (r - 1) * gap) / r) * aspect);
      assert.ok(tw <= g.tileWidth + 1.01, `${n} in ${w.toFixed(0)}x${h.toFixed(0)}: ${c}x${r} gives ${tw.toFixed(1)} > chosen ${g.cols}x${g.rows} ${g.tileWidth}`);
    }
  }
});

test('nothing to show or no room gives an empty grid, a bad aspect falls back to 16:9', () => {
  assert.deepEqual(bestGrid(0, 800, 600), { cols: 0, rows: 0, tileWidth: 0, tileHeight: 0 });
  assert.equal(bestGrid(2, 0, 600).tileWidth, 0);
  assert.ok(Math.abs(ratio(bestGrid(1, 1600, 900, NaN)) - 16 / 9) < 0.01);
});

test('a page holds as many tiles as stay wide enough, capped, at least one', () => {
  const n = tilesPerPage(1240, 560, { gap: 10, minTileWidth: 240, max: 25 });
  assert.ok(bestGrid(n, 1240, 560, 16 / 9, 10).tileWidth >= 240);
  assert.ok(bestGrid(n + 1, 1240, 560, 16 / 9, 10).tileWidth < 240, `${n + 1} would be narrower`);
  assert.equal(tilesPerPage(4000, 3000, { max: 9 }), 9);
  assert.equal(tilesPerPage(100, 100, { minTileWidth: 240 }), 1);
});

test('pages: "12 more" is everyone not on the page, the page index is clamped', () => {
  const ids = Array.from({ length: 18 }, (_, i) => 'p' + i);
  assert.deepEqual(pageOf(ids, 0, 6), { page: 0, pages: 3, ids: ids.slice(0, 6), hidden: 12 });
  assert.deepEqual(pageOf(ids, 2, 6).ids, ids.slice(12, 18));
  assert.equal(pageOf(ids, 9, 6).page, 2);
  assert.equal(pageOf([], 0, 6).pages, 1);
});

test('an active speaker off the page takes the place of the page\'s longest-silent tile', () => {
  const order = ['a', 'b', 'c', 'd', 'e', 'f'];
  const spoke = { a: 50, b: 10, c: 40 };
  const out = promoteSpeakers(order, 0, 3, ['e'], spoke);
  assert.deepEqual(out, ['a', 'e', 'c', 'd', 'b', 'f'], 'b spoke longest ago on page 0');
  assert.deepEqual(order, ['a', 'b', 'c', 'd', 'e', 'f'], 'input untouched');
  assert.equal(promoteSpeakers(order, 0, 3, ['b'], spoke), order, 'already visible: same array');
  const two = promoteSpeakers(order, 0, 3, ['e', 'f'], spoke);
  assert.deepEqual(two.slice(0, 3).sort(), ['a', 'e', 'f'], 'two speakers replace the two longest silent');
  assert.equal(promoteSpeakers(order, 0, 3, ['zz'], spoke), order, 'unknown speaker: nothing moves');
});
