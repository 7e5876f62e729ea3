// Rotation-time benchmark of the SDK's e2ee key management (bench/e2ee/README.md): N participants of one e2ee
// meeting run in this page, each with its own REST client, signaling socket to the real controller and
// E2eeSession (FrameCryptor in place of the worker: the frames are not what is measured). Membership follows the
// control events each socket receives, exactly as in the SDK. The host removes one participant; measured per
// remaining sender: removal command sent → its new key in use (inUse), and → every remaining member holds it
// (delivered). Runs on the controller's origin (page.evaluate of this module's `bench`).

import { ApiClient } from '/sdk/api.js';
import { E2eeSession } from '/sdk/e2ee/session.js';
import { FrameCryptor } from '/sdk/e2ee/frame-cryptor.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN; };

async function until(cond, ms, what) {
  const end = performance.now() + ms;
  while (performance.now() < end) { if (cond()) return; await sleep(20); }
  throw new Error('timed out: ' + what);
}

/** One participant: token, join, transport, socket, session. */
async function participant(tenant, meetingId, i, hostApi) {
  const boot = new ApiClient();
  const { token } = await boot.devToken({ tenant, principal: crypto.randomUUID(), name: 'p' + i });
  const api = hostApi || new ApiClient({ getToken: () => token });
  const j = await api.join(meetingId, { client_instance_id: crypto.randomUUID(), display_name: 'P' + i, capabilities: { e2ee: true } });
  const pid = String(j.participant_id);
  const t = await api.createTransport(meetingId, pid, { expected_transport_generation: 0, device_key_id: crypto.randomUUID() });
  const url = new URL(t.signaling_endpoint || '/v1/connect', location.origin);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(url);
  const p = { pid, api, ws, roster: new Set(), session: /** @type {any} */ (null) };
  p.session = new E2eeSession({ meetingId, selfId: pid, send: (m) => ws.send(JSON.stringify(m)), cryptor: new FrameCryptor(), epoch: () => Number(t.controller_epoch) });
  await new Promise((resolve, reject) => {
    ws.onopen = () => ws.send(JSON.stringify({ type: 'join', connect_ticket: t.connect_ticket }));
    ws.onerror = reject;
    ws.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (m.type === 'joined') { resolve(undefined); return; }
      if (p.session.handle(m)) return;
      if (m.type !== 'event' || !m.event) return;
      const ev = m.event;
      if (p.session.handle(ev)) return;
      const who = String((ev.participant || ev).participant_id || '');
      if (!who || who === pid) return;
      if (ev.type === 'participant_joined' || ev.type === 'participant_admitted') p.roster.add(who);
      else if (['participant_left', 'participant_removed', 'participant_denied'].includes(ev.type)) p.roster.delete(who);
      else return;
      p.session.setRoster([...p.roster]);
    };
  });
  return p;
}

/** @param {{n:number}} o */
export async function bench(o) {
  const boot = new ApiClient();
  const tenant = crypto.randomUUID();
  const { token } = await boot.devToken({ tenant, principal: crypto.randomUUID(), name: 'host' });
  const hostApi = new ApiClient({ getToken: () => token });
  const m = await hostApi.createMeeting({ title: 'rotation bench', waiting_room_enabled: false, encryption_mode: 'e2ee' });
  const meetingId = String(m.meeting_id);
  const ps = [await participant(tenant, meetingId, 0, hostApi)];
  for (let i = 1; i < o.n; i++) ps.push(await participant(tenant, meetingId, i, null));
  // everyone knows everyone (the roster of those who joined before comes from our own list: no snapshot here)
  for (const p of ps) { for (const q of ps) if (q !== p) p.roster.add(q.pid); p.session.setRoster([...p.roster]); }
  for (const p of ps) await p.session.start();
  const holds = (rx, tx) => (rx.session.received.get(tx.pid) ?? 0) >= tx.session.generation;
  await until(() => ps.every((tx) => tx.session.lastRotation.inUseAt > 0 && ps.every((rx) => rx === tx || holds(rx, tx))), 120000, 'initial keys');
  await sleep(500);
  const victim = ps[ps.length - 1];
  const rest = ps.slice(0, -1);
  const before = new Map(rest.map((p) => [p.pid, p.session.generation]));
  const t0 = performance.now();
  await hostApi.command(meetingId, { type: 'remove_participant', participant_id: victim.pid, allow_rejoin: false });
  const inUse = new Map();
  const delivered = new Map();
  await until(() => {
    const now = performance.now();
    for (const tx of rest) {
      if (tx.session.generation <= before.get(tx.pid)) continue;
      if (!inUse.has(tx.pid) && tx.session.lastRotation.inUseAt > 0 && tx.session.lastRotation.reason === 'departure') inUse.set(tx.pid, tx.session.lastRotation.inUseAt - t0);
      if (!delivered.has(tx.pid) && rest.every((rx) => rx === tx || holds(rx, tx))) delivered.set(tx.pid, now - t0);
    }
    return inUse.size === rest.length && delivered.size === rest.length;
  }, 30000, 'rotation after the removal');
  const victimGot = rest.filter((tx) => (victim.session.received.get(tx.pid) ?? 0) >= tx.session.generation).length;
  for (const p of ps) { p.session.close(); p.ws.close(); }
  const iu = [...inUse.values()];
  const dl = [...delivered.values()];
  return {
    participants: o.n, senders: rest.length,
    inUse: { p50: Math.round(pct(iu, 50)), p95: Math.round(pct(iu, 95)), max: Math.round(Math.max(...iu)) },
    delivered: { p50: Math.round(pct(dl, 50)), p95: Math.round(pct(dl, 95)), max: Math.round(Math.max(...dl)) },
    removedGotNewKeys: victimGot,
    envelopesRefused: ps.reduce((a, p) => a + p.session.counts.refusedByServer, 0),
  };
}
