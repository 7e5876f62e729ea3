// node --test: in a paged roster the SDK watches the SFU's active speakers and fetches the ones it does not know
// (GET …/participants?ids=), so the stage can promote a speaker from another page; people it knows are not fetched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

const sdk = (f) => pathToFileURL(`${process.env.PARLEY_SDK_DIR}/${f}`).href;
const { ParleyClient } = await import(sdk('parley-client.js'));

const M = '11111111-0000-4000-8000-000000000001';
const SELF = 'ffffffff-0000-4000-8000-00000000000f';
const ON_PAGE = 'aaaaaaaa-0000-4000-8000-000000000001';
const FAR = 'bbbbbbbb-0000-4000-8000-000000000002';

function client({ paged }) {
  const fetched = [];
  const fetch = async (url) => {
    fetched.push(url);
    const ids = new URL(url).searchParams.get('ids').split(',');
    const participants = ids.map((id) => ({ participant_id: id, display_name: `P-${id.slice(0, 4)}`, role: 'attendee',
      admission_state: 'admitted', participant_version: 3, publish: { audio: true, video: true, screen: false } }));
    return { ok: true, status: 200, headers: { get: () => 'application/json' }, text: async () => JSON.stringify({ participants, control_cursor: '1.9' }) };
  };
  const c = new ParleyClient({ baseUrl: 'http://parley.test', token: 't', fetch });
  const sent = [];
  c.meetingId = M;
  c.signaling = { open: true, send: (m) => { sent.push(m); return true; } };
  c.store.set((s) => ({
    self: { ...s.self, participant_id: SELF },
    participants: { [ON_PAGE]: { participant_id: ON_PAGE, display_name: 'On page', version: 1, tracks: {} } },
    roster: { ...s.roster, paged, page: { cursor: null, next: null, limit: 50, ids: [ON_PAGE] } },
  }));
  return { c, sent, fetched };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

test('paged: an active speaker off the page is watched and fetched, then on the stage list of participants', async () => {
  const { c, sent, fetched } = client({ paged: true });
  c.handleEvent({ type: 'active_speakers', volatile: true, participant_ids: [FAR, SELF, ON_PAGE] });
  await settle();
  const pages = sent.filter((m) => m.type === 'roster_page');
  assert.equal(pages.length, 1);
  assert.deepEqual([...pages[0].participant_ids].sort(), [ON_PAGE, FAR].sort(), 'the page and the speaker, never self');
  assert.equal(fetched.length, 1, 'only the unknown speaker is fetched');
  assert.match(fetched[0], new RegExp(`/v1/meetings/${M}/participants\\?ids=${FAR}$`));
  assert.equal(c.state.participants[FAR]?.display_name, 'P-bbbb');
  assert.deepEqual(c.state.activeSpeakers, [FAR, SELF, ON_PAGE]);

  // the same speakers again: nothing new is sent or fetched
  c.handleEvent({ type: 'active_speakers', volatile: true, participant_ids: [FAR, SELF, ON_PAGE] });
  await settle();
  assert.equal(sent.filter((m) => m.type === 'roster_page').length, 1);
  assert.equal(fetched.length, 1);
});

test('not paged: active speakers change nothing on the roster side', async () => {
  const { c, sent, fetched } = client({ paged: false });
  c.handleEvent({ type: 'active_speakers', volatile: true, participant_ids: [FAR] });
  await settle();
  assert.equal(sent.filter((m) => m.type === 'roster_page').length, 0);
  assert.equal(fetched.length, 0);
});
