// node --test: the snapshot and the roster are read models that can answer with a state older than events the
// socket already applied. A participant admitted while such a read was on its way must not vanish when the answer
// lands (seen in E2eeBrowserIT: the host's roster dropped a member for 9 s, its e2ee session rotated for a
// "departure" and waited for keys nobody sent).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

const sdk = (f) => pathToFileURL(`${process.env.PARLEY_SDK_DIR}/${f}`).href;
const { ParleyClient } = await import(sdk('parley-client.js'));

const M = '11111111-0000-4000-8000-000000000001';
const SELF = 'ffffffff-0000-4000-8000-00000000000f';
const OLD = 'aaaaaaaa-0000-4000-8000-000000000001';
const NEW = 'bbbbbbbb-0000-4000-8000-000000000002';

const row = (id, state, v) => ({ participant_id: id, display_name: `P-${id.slice(0, 4)}`, role: 'attendee',
  admission_state: state, participant_version: v, publish: { audio: true, video: true, screen: false } });

/** A client whose reads answer only when released, with what the read model held when they were asked. */
function client({ paged }) {
  const gates = [];
  const fetch = (url) => new Promise((resolve) => {
    const u = new URL(url);
    const body = u.pathname.endsWith('/snapshot')
      ? { control_cursor: '1.5', self: { participant_id: SELF, admission_state: 'admitted', participant_version: 2 } }
      : { participants: [row(OLD, 'admitted', 3)], next_cursor: null };
    gates.push(() => resolve({ ok: true, status: 200, headers: { get: () => 'application/json' }, text: async () => JSON.stringify(body) }));
  });
  const c = new ParleyClient({ baseUrl: 'http://parley.test', token: 't', fetch });
  c.meetingId = M;
  c.signaling = { open: true, send: () => true };
  c.store.set((s) => ({
    self: { ...s.self, participant_id: SELF },
    participants: { [OLD]: { participant_id: OLD, display_name: 'Old', version: 3, tracks: {} } },
    roster: { ...s.roster, paged, page: { cursor: null, next: null, limit: 50, ids: [OLD] } },
  }));
  return { c, release: () => { while (gates.length) gates.shift()(); } };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

for (const paged of [false, true]) {
  test(`${paged ? 'paged' : 'whole'} roster: an admission heard during a resync survives its older answer`, async () => {
    const { c, release } = client({ paged });
    const done = c.resync();
    await settle();
    c.handleEvent({ type: 'participant_admitted', participant: row(NEW, 'admitted', 4) }, '1.6');
    assert.ok(c.state.participants[NEW], 'the event applied at once');
    release();
    await done;
    assert.ok(c.state.participants[NEW], 'still there after the answer that did not know it');
    assert.ok(c.state.participants[OLD], 'the answer itself applied');
  });
}

test('a departure heard during a roster page read is not undone by the page', async () => {
  const { c, release } = client({ paged: true });
  const done = c.rosterPage({});
  await settle();
  c.handleEvent({ type: 'participant_left', participant_id: OLD, reason: 'left' }, '1.6');
  release();
  await done;
  assert.equal(c.state.participants[OLD], undefined, 'the page (older) does not bring back who left');
});

test('events heard after the read ended are not applied again to a later answer', async () => {
  const { c, release } = client({ paged: false });
  const first = c.resync();
  await settle();
  release();
  await first;
  c.handleEvent({ type: 'participant_admitted', participant: row(NEW, 'admitted', 4) }, '1.6');
  c.handleEvent({ type: 'participant_left', participant_id: NEW, reason: 'left' }, '1.7');
  const second = c.resync();
  await settle();
  release();
  await second;
  assert.equal(c.state.participants[NEW], undefined);
  assert.equal((c.reading?.size ?? 0), 0, 'no read left open');
});
