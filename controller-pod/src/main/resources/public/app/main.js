// The meeting app: routes between screens and connects the SDK to the meeting view.

import { ParleyClient, ApiClient, describeCode } from '../sdk/parley-client.js';
import { h } from './dom.js';
import { loadSession, saveSession, clearSession, nameUuid } from './session.js';
import { signInScreen, homeScreen, shareScreen, preJoinScreen, waitingScreen, endScreen } from './screens.js';
import { MeetingView } from './meeting-view.js';
import { listDevices, openDevices } from './devices.js';

const main = document.getElementById('main');
const toasts = document.getElementById('toasts');
const status = document.getElementById('status');

/** Exposed for tests and diagnostics (no secrets: the token stays in the client object). */
const app = { client: null, view: null };
window.parleyApp = app;

function show(node) {
  if (toasts.parentElement !== document.body) document.body.append(toasts); // back to the corner outside a meeting
  main.replaceChildren(node);
  const h1 = main.querySelector('h1');
  if (h1) { h1.tabIndex = -1; h1.focus({ preventScroll: true }); }
}

function announce(text) { status.textContent = text; }

/** When each toast text was last shown: the same message within 10 s is one message, not two. */
const recentToasts = new Map();

/** Show a notice as a toast (also read by screen readers through the live region). */
function toast(level, text) {
  const now = Date.now();
  for (const [k, at] of recentToasts) if (now - at > 10000) recentToasts.delete(k);
  if (recentToasts.has(text)) return;
  recentToasts.set(text, now);
  const t = h('div', { class: 'toast ' + level, role: level === 'error' ? 'alert' : 'status' }, text,
    h('button', { class: 'close', 'aria-label': 'Dismiss', onclick: () => t.remove() }, '×'));
  toasts.append(t);
  setTimeout(() => t.remove(), level === 'error' ? 12000 : 6000);
}

function route() {
  const m = /^#\/m\/([A-Za-z0-9_-]+)/.exec(location.hash);
  const session = loadSession();
  if (!session) return show(signInScreen({ onSignIn: signIn }));
  if (m) return preJoin(m[1]);
  show(homeScreen({
    name: session.name,
    onCreate: createMeeting,
    onJoin: (id) => { location.hash = '#/m/' + id; },
    onSignOut: () => { clearSession(); route(); },
  }));
}

async function signIn(name, principal, tenant) {
  const api = new ApiClient();
  const ids = { tenant: await nameUuid('tenant', tenant), principal: await nameUuid('principal', principal) };
  const r = await api.devToken({ ...ids, name });
  saveSession({ token: r.token, name, principal, tenant, ...{ principalId: ids.principal, tenantId: ids.tenant } });
  announce(`Signed in as ${name}.`);
  route();
}

async function createMeeting(m) {
  const s = loadSession();
  const api = new ApiClient({ getToken: () => s.token });
  const r = await api.createMeeting({ title: m.title, waiting_room_enabled: m.waitingRoom, encryption_mode: m.encryptionMode });
  const link = `${location.origin}${location.pathname}#/m/${r.meeting_id}`;
  history.replaceState(null, '', '#/created/' + r.meeting_id);
  show(shareScreen({ link, title: m.title, onJoin: () => { location.hash = '#/m/' + r.meeting_id; } }));
}

async function preJoin(meetingId) {
  const s = loadSession();
  const api = new ApiClient({ getToken: () => s.token, maxAttempts: 2 });
  let meeting = null;
  try { meeting = await api.getMeeting(meetingId); } catch (e) {
    if (e.code === 'unauthorized') { clearSession(); return route(); }
    return show(endScreen({ kind: e.code === 'meeting_ended' ? 'ended' : 'failed', text: e.message, onHome: home }));
  }
  if (meeting?.status === 'ended') return show(endScreen({ kind: 'ended', text: describeCode('meeting_ended'), onHome: home }));
  show(preJoinScreen({ title: meeting?.title, name: s.name, onBack: home,
    onJoin: (o) => joinMeeting(meetingId, meeting, o) }));
}

function home() { history.replaceState(null, '', '#/'); route(); }

async function joinMeeting(meetingId, meeting, o) {
  const s = loadSession();
  const client = new ParleyClient({ token: s.token });
  app.client = client;
  const mic = o.stream?.getAudioTracks()[0] || null;
  const cam = o.stream?.getVideoTracks()[0] || null;
  if (mic) mic.enabled = o.micOn;
  if (cam) cam.enabled = o.camOn;
  let view = null;
  let seenNotice = 0;
  let screen = '';
  const localStreams = { camera: cam ? new MediaStream([cam]) : null, screen: null };
  const actions = {
    toggleMic: () => client.setMicrophone(!client.state.self.mic.on),
    toggleCamera: () => client.setCamera(!client.state.self.camera.on),
    toggleScreen: async () => {
      if (client.state.self.screen.on) return client.stopScreenShare();
      const ok = await client.startScreenShare();
      localStreams.screen = ok && client.local.screen ? new MediaStream([client.local.screen]) : null;
      view?.update(client.state);
    },
    leave: () => { client.leave(); stopLocal(); },
    endMeeting: () => client.endMeeting().catch(() => {}),
    muteAll: () => client.muteAll(true).catch(() => {}),
    lock: (v) => client.lock(v).catch(() => {}),
    record: (start) => (start ? client.startRecording() : client.stopRecording()).catch(() => {}),
    admit: (pid) => client.admit(pid).catch(() => {}),
    deny: (pid) => client.deny(pid).catch(() => {}),
    mute: (pid) => client.mute(pid).catch(() => {}),
    requestUnmute: (pid) => client.requestUnmute(pid).catch(() => {}),
    remove: (pid) => client.remove(pid).catch(() => {}),
    setRole: (pid, role) => client.setRole(pid, role).catch(() => {}),
    transferHost: (pid) => client.transferHost(pid).catch(() => {}),
    answerUnmute: (yes) => client.answerUnmuteRequest(yes),
    toggleHand: () => (client.state.self.handRaised ? client.lowerHand() : client.raiseHand()).catch(() => {}),
    lowerHand: (pid) => client.lowerHand(pid).catch(() => {}),
    allowSpeak: (pid, allowed = true) => client.allowSpeak(pid, allowed).catch(() => {}),
    setUnmutePolicy: (policy) => client.setLargeMeetingPolicy({ unmutePolicy: policy }).catch(() => {}),
    viewport: (tracks) => client.setViewport(tracks),
    rosterPage: (o) => client.rosterPage(o).catch(() => {}),
    listDevices: async () => ({ ...(await listDevices()),
      currentCamera: client.local.camera?.getSettings?.().deviceId, currentMicrophone: client.local.microphone?.getSettings?.().deviceId }),
    switchDevice: async (kind, deviceId) => {
      const r = await openDevices(kind === 'camera' ? { cameraId: deviceId, audio: false } : { microphoneId: deviceId, video: false });
      const track = kind === 'camera' ? r.stream?.getVideoTracks()[0] : r.stream?.getAudioTracks()[0];
      if (!track) { toast('error', r.error || `That ${kind} could not be opened.`); return; }
      await client.replaceDevice(kind, track);
      if (kind === 'camera') localStreams.camera = new MediaStream([track]);
      view?.update(client.state);
      announce(`${kind === 'camera' ? 'Camera' : 'Microphone'} switched.`);
    },
    confirm: (text) => window.confirm(text),
  };
  const stopLocal = () => { o.stream?.getTracks().forEach((t) => t.stop()); client.local.camera?.stop(); client.local.microphone?.stop(); };
  const render = (st) => {
    const ending = ['removed', 'denied', 'ended', 'left', 'locked'].includes(st.admission) || (st.connection === 'failed' && (!view || !client.everConnected));
    // the end screen says why (removed, denied, ended, failed): its notice would say it a second time
    for (const n of st.notices) if (n.id > seenNotice) { seenNotice = n.id; if (!ending && screen !== 'end') toast(n.level, n.text); }
    if (ending) {
      if (screen === 'end') return;
      screen = 'end';
      view?.destroy();
      view = null;
      app.view = null;
      stopLocal();
      const kind = st.connection === 'failed' && !['removed', 'denied', 'ended', 'left', 'locked'].includes(st.admission) ? 'failed' : st.admission;
      const reason = st.connectionReason;
      const text = kind === 'left' ? 'You can rejoin while the meeting is running.'
        : kind === 'failed' ? describeCode(reason)
        : kind === 'removed' ? describeCode(['principal_banned', 'rejoin_forbidden', 'banned'].includes(reason) ? reason : 'removed')
        : describeCode(kind === 'locked' ? 'meeting_locked' : kind === 'ended' ? 'meeting_ended' : 'denied');
      show(endScreen({ kind, text, onHome: home, onRejoin: kind === 'left' || kind === 'failed' || kind === 'locked' ? () => preJoin(meetingId) : undefined }));
      return;
    }
    if (st.admission === 'waiting') {
      if (screen !== 'waiting') { screen = 'waiting'; show(waitingScreen({ title: meeting?.title, onLeave: () => { client.leave(); stopLocal(); } })); }
      return;
    }
    if (st.admission === 'admitted' || st.admission === 'joining') {
      if (screen !== 'meeting') {
        screen = 'meeting';
        view = new MeetingView(main, { remoteStream: (pid, src) => client.remoteStream(pid, src), localStream: (src) => localStreams[src], actions });
        app.view = view;
        view.toastHost.append(toasts);
      }
      view.update(st);
    }
  };
  client.subscribe(render);
  client.store.set((x) => ({ meeting: { ...(x.meeting || {}), ...(meeting || {}) } }));
  try {
    await client.join(meetingId, { displayName: o.displayName, microphone: mic, camera: cam });
    announce('You joined the meeting.');
  } catch (e) {
    // The state listener already shows the end screen or the failure with its reason.
    if (screen !== 'end') render(client.state);
  }
}

window.addEventListener('hashchange', () => { if (!app.client || ['left', 'removed', 'ended', 'denied'].includes(app.client.state.admission)) route(); });
route();
