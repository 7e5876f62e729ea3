// node --test: the SDK's aoi.js (positions throttled latest-wins, interest messages newest-first, the filter).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const { AreaOfInterest, POSITION_INTERVAL_MS } = await import(pathToFileURL(`${process.env.PARLEY_SDK_DIR}/aoi.js`).href);

function harness() {
  const sent = [];
  const seen = [];
  const aoi = new AreaOfInterest({ send: (m) => { sent.push(m); return true; }, onInterest: (e) => seen.push(e) });
  return { aoi, sent, seen };
}

test('positions: the first goes at once, a burst sends only its newest one after the interval', async () => {
  const { aoi, sent } = harness();
  aoi.setPosition(1, 2);
  assert.deepEqual(sent, [{ type: 'position', x: 1, y: 2 }]);
  for (let i = 0; i < 20; i++) aoi.setPosition(i, i);
  assert.equal(sent.length, 1);
  await sleep(POSITION_INTERVAL_MS + 50);
  assert.deepEqual(sent, [{ type: 'position', x: 1, y: 2 }, { type: 'position', x: 19, y: 19 }]);
});

test('positions outside the rules throw and send nothing', () => {
  const { aoi, sent } = harness();
  for (const [x, y] of [[NaN, 0], [0, Infinity], [100001, 0], ['1', 0], [0, null]]) {
    assert.throws(() => aoi.setPosition(/** @type {any} */ (x), /** @type {any} */ (y)), RangeError);
  }
  assert.equal(sent.length, 0);
});

test('interest: newer sequences win, the subscription keeps only tracks of the interest set', () => {
  const { aoi, seen } = harness();
  const tracks = [{ track_id: 'a:0' }, { track_id: 'a:1' }, { track_id: 'b:0' }, { track_id: 'c:1' }];
  assert.deepEqual(aoi.filter(tracks), tracks, 'nothing filtered before the first interest message');
  assert.equal(aoi.applyInterest({ sequence: 5, participants: ['a', 'c'] }), true);
  assert.equal(aoi.applyInterest({ sequence: 4, participants: ['b'] }), false);
  assert.equal(aoi.applyInterest({ sequence: 'x', participants: ['b'] }), false);
  assert.deepEqual(seen, [{ participants: ['a', 'c'], sequence: 5 }]);
  assert.deepEqual(aoi.filter(tracks).map((t) => t.track_id), ['a:0', 'a:1', 'c:1']);
});
