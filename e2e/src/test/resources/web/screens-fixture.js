// Renders one app screen from fixed data so it can be screenshotted and checked at laptop and phone
// widths without a running platform. The meeting state is built by feeding events through the SDK's
// real reducer; remote videos are the fake camera and a canvas "screen". Used by WebScreensIT.
// (The screens against the real platform are taken by PlatformE2EIT.)

import { signInScreen, homeScreen, shareScreen, preJoinScreen, waitingScreen, endScreen } from '/app/screens.js';
import { MeetingView } from '/app/meeting-view.js';
import { initialState, applyEvent, withNotice } from '/sdk/state.js';
import { h } from '/app/dom.js';

const main = document.getElementById('main');
const which = new URLSearchParams(location.search).get('screen') || 'signin';
const noop = () => {};

function toast(level, text) {
  document.getElementById('toasts').append(h('div', { class: 'toast ' + level, role: 'status' }, text, h('button', { class: 'close', 'aria-label': 'Dismiss' }, '×')));
}

/** A canvas pretending to be a shared slide deck. */
function screenStream() {
  const c = document.createElement('canvas');
  c.width = 1280; c.height = 720;
  const g = c.getContext('2d');
  const draw = () => {
    g.fillStyle = '#f5f7fb'; g.fillRect(0, 0, 1280, 720);
    g.fillStyle = '#1d3b72'; g.font = 'bold 64px sans-serif'; g.fillText('Q3 architecture review', 80, 150);
    g.fillStyle = '#333'; g.font = '40px sans-serif';
    ['• One controller per meeting (epoch fenced)', '• SFU grants expire in 3 s', '• committed vs applied'].forEach((t, i) => g.fillText(t, 100, 280 + i * 80));
    g.fillStyle = '#4f8cff'; g.fillRect(80, 600, (Date.now() / 10) % 1120, 16);
    requestAnimationFrame(draw);
  };
  draw();
  return c.captureStream(15);
}

async function meetingState(variant) {
  let s = initialState();
  s = { ...s, admission: 'admitted', connection: variant === 'reconnecting' ? 'reconnecting' : 'connected',
    meeting: { id: 'f3d14245', title: 'Architecture Review', locked: variant === 'host-panel', status: 'live' },
    self: { ...s.self, participant_id: 'me', display_name: 'Richard', role: 'host', mic: { on: true, reason: null }, camera: { on: true, reason: null } },
    quality: { level: variant === 'reconnecting' ? 'poor' : 'good', rttMs: 24, lossPct: 0 } };
  const people = [['p1', 'Mina Park', 'cohost'], ['p2', 'Jonas Weber', 'attendee'], ['p3', 'Aiko Tanaka', 'attendee'], ['p4', 'Sam Rivera', 'attendee']];
  const evs = [];
  for (const [id, name, role] of people) {
    evs.push({ type: 'participant_joined', participant_id: id, display_name: name, role, admission_state: 'admitted', participant_version: 1, publish: { audio: true, video: true, screen: false } });
    evs.push({ type: 'track_published', participant_id: id, track_id: id + '-cam', kind: 'video', source: 'camera' });
  }
  evs.push({ type: 'participant_waiting', participant_id: 'w1', display_name: 'Guest Lee', admission_state: 'waiting', participant_version: 1 });
  evs.push({ type: 'participant_waiting', participant_id: 'w2', display_name: 'Olu Adebayo', admission_state: 'waiting', participant_version: 1 });
  evs.push({ type: 'active_speakers', participant_ids: ['p1'] });
  evs.push({ type: 'permission_changed', participant_id: 'p3', publish: { audio: false }, participant_version: 2, command_id: 'c1' });
  if (variant !== 'reconnecting') evs.push({ type: 'command_applied', command_id: 'c1', participant_id: 'p3' });
  evs.push({ type: 'recording_state', state: 'recording' });
  if (variant === 'screen') evs.push({ type: 'track_published', participant_id: 'p2', track_id: 'p2-screen', kind: 'video', source: 'screen' });
  if (variant === 'hands') {
    // a large meeting: two raised hands in the host's queue, presenters only
    evs.push({ type: 'hand_raised', participant_id: 'p4', display_name: 'Sam Rivera', raised_at: '2026-12-07T10:00:01.000000Z' });
    evs.push({ type: 'hand_raised', participant_id: 'p2', display_name: 'Jonas Weber', raised_at: '2026-12-07T10:00:04.000000Z' });
    evs.push({ type: 'meeting_policy_changed', large_meeting_size: 50, unmute_policy: 'hosts_and_presenters' });
  }
  for (const ev of evs) s = applyEvent(s, ev).state;
  s = { ...s, commands: { ...s.commands, c1: { ...s.commands.c1, type: 'set_publish', participant_id: 'p3', sentAt: 1 } } };
  if (variant === 'screen') s.participants.p2.tracks.screen.attached = true;
  if (variant === 'unmute') s = { ...s, self: { ...s.self, role: 'attendee', mic: { on: false, reason: 'permission_revoked' } }, unmuteRequest: { by: 'p1', at: 0 } };
  if (variant === 'reconnecting') s = withNotice(s, 'info', 'queued', '"Mute" will be sent when the connection is back (if within 30 s).');
  return s;
}

async function render() {
  switch (which) {
    case 'signin': main.replaceChildren(signInScreen({ onSignIn: noop })); break;
    case 'home': main.replaceChildren(homeScreen({ name: 'Richard', onCreate: noop, onJoin: noop, onSignOut: noop })); break;
    case 'share': main.replaceChildren(shareScreen({ title: 'Architecture Review', link: location.origin + '/#/m/f3d14245-8010-4a06-8a7b-8c742066a752', onJoin: noop })); break;
    case 'prejoin': main.replaceChildren(preJoinScreen({ title: 'Architecture Review', name: 'Mina Park', onJoin: noop, onBack: noop })); break;
    case 'waiting': main.replaceChildren(waitingScreen({ title: 'Architecture Review', onLeave: noop })); break;
    case 'removed': main.replaceChildren(endScreen({ kind: 'removed', text: 'You were removed from this meeting by the host.', onHome: noop })); break;
    default: {
      const variant = which.replace(/^meeting-?/, '') || 'grid';
      const cam = await navigator.mediaDevices.getUserMedia({ video: { width: 640, height: 360 } });
      const screen = screenStream();
      const state = await meetingState(variant);
      const view = new MeetingView(main, {
        remoteStream: (pid, src) => (src === 'screen' ? screen : src === 'camera' && pid !== 'p4' ? cam : null),
        localStream: (src) => (src === 'camera' ? cam : null),
        actions: new Proxy({}, { get: () => noop }),
      });
      if (variant === 'speaker') view.ui.layout = 'speaker';
      if (variant === 'host-panel' || variant === 'hands') view.ui.panel = true;
      if (variant === 'grid' || variant === 'screen' || variant === 'speaker') view.ui.panel = false;
      view.update(state);
      for (const n of state.notices) toast(n.level, n.text);
      if (variant === 'host-panel') {
        const d = main.querySelector('[data-testid="participant-p2"] details');
        if (d) d.open = true;
      }
    }
  }
  window.screenReady = true;
}
render().catch((e) => { document.body.append(String(e)); window.screenError = String(e); window.screenReady = true; });
