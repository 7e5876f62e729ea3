// Screens before and after the meeting: sign-in, home (create / join), share link, device preview,
// waiting room, and the "you left / were removed / meeting ended" screen.

import { h } from './dom.js';
import { listDevices, openDevices, levelMeter } from './devices.js';
import { principalFrom } from './session.js';

/** A labelled form field. */
function field(label, input, hint) {
  const id = input.id || (input.id = 'f-' + Math.random().toString(36).slice(2, 8));
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, hint ? h('p', { class: 'hint' }, hint) : null);
}

/** Error line under a form, announced. */
function errorLine() { return h('p', { class: 'form-error', role: 'alert', 'data-testid': 'form-error' }); }

/** @param {{onSignIn:(name:string, principal:string, tenant:string) => Promise<void>}} o */
export function signInScreen(o) {
  const name = h('input', { type: 'text', autocomplete: 'name', required: true, 'data-testid': 'signin-name', maxlength: 60 });
  const principal = h('input', { type: 'text', 'data-testid': 'signin-principal', placeholder: 'from your name', maxlength: 60 });
  const tenant = h('input', { type: 'text', value: 'local', 'data-testid': 'signin-tenant', maxlength: 60 });
  const err = errorLine();
  const submit = h('button', { class: 'primary', type: 'submit', 'data-testid': 'signin-submit' }, 'Sign in');
  const form = h('form', { class: 'card', 'aria-labelledby': 'signin-title', onsubmit: async (e) => {
    e.preventDefault();
    err.textContent = '';
    if (!name.value.trim()) { err.textContent = 'Enter your name.'; name.focus(); return; }
    submit.disabled = true;
    try { await o.onSignIn(name.value.trim(), principal.value.trim() || principalFrom(name.value), tenant.value.trim() || 'local'); }
    catch (x) { err.textContent = x.message || 'Sign-in failed.'; }
    finally { submit.disabled = false; }
  } },
  h('h1', { id: 'signin-title' }, 'Sign in'),
  h('p', { class: 'muted' }, 'Local mode: the server gives you a development token. Use a different name in each tab to be different people.'),
  field('Your name', name), field('User id', principal, 'Stays the same when you rejoin.'), field('Organisation', tenant), err, submit);
  return h('div', { class: 'center' }, brand(), form);
}

/**
 * @param {{name:string, onCreate:(m:{title:string, waitingRoom:boolean, encryptionMode:string}) => Promise<void>,
 *   onJoin:(id:string) => void, onSignOut:() => void}} o
 */
export function homeScreen(o) {
  const title = h('input', { type: 'text', required: true, maxlength: 200, value: `${o.name}'s meeting`, 'data-testid': 'create-title' });
  const wr = h('input', { type: 'checkbox', checked: true, 'data-testid': 'create-waiting-room' });
  const enc = h('select', { 'data-testid': 'create-encryption' },
    h('option', { value: 'transport' }, 'Transport encryption (recording available)'),
    h('option', { value: 'e2ee' }, 'End-to-end encryption (no recording)'));
  const err = errorLine();
  const submit = h('button', { class: 'primary', type: 'submit', 'data-testid': 'create-submit' }, 'Create meeting');
  const create = h('form', { class: 'card', 'aria-labelledby': 'create-title-h', onsubmit: async (e) => {
    e.preventDefault();
    err.textContent = '';
    if (!title.value.trim()) { err.textContent = 'Give the meeting a title.'; title.focus(); return; }
    submit.disabled = true;
    try { await o.onCreate({ title: title.value.trim(), waitingRoom: wr.checked, encryptionMode: enc.value }); }
    catch (x) { err.textContent = x.message || 'Could not create the meeting.'; }
    finally { submit.disabled = false; }
  } },
  h('h2', { id: 'create-title-h' }, 'New meeting'),
  field('Title', title),
  h('div', { class: 'field check' }, wr, h('label', { for: wr.id = 'f-wr' }, 'Waiting room: I admit each guest')),
  field('Encryption', enc), err, submit);
  const link = h('input', { type: 'text', placeholder: 'Meeting link or id', 'data-testid': 'join-link', required: true });
  const err2 = errorLine();
  const join = h('form', { class: 'card', 'aria-labelledby': 'join-h', onsubmit: (e) => {
    e.preventDefault();
    const id = meetingIdFrom(link.value);
    if (!id) { err2.textContent = 'That is not a meeting link.'; link.focus(); return; }
    o.onJoin(id);
  } }, h('h2', { id: 'join-h' }, 'Join a meeting'), field('Link or id', link), err2, h('button', { type: 'submit' }, 'Join'));
  return h('div', { class: 'home' },
    h('div', { class: 'home-head' }, brand(), h('span', { class: 'muted' }, 'Signed in as ', h('strong', {}, o.name)), h('button', { class: 'ghost', onclick: o.onSignOut }, 'Sign out')),
    h('div', { class: 'cards' }, create, join));
}

/** The meeting id in a pasted link (…#/m/ID) or a bare id. */
export function meetingIdFrom(text) {
  const t = (text || '').trim();
  const m = /#\/m\/([A-Za-z0-9_-]+)/.exec(t) || /^([A-Za-z0-9_-]{6,})$/.exec(t);
  return m ? m[1] : null;
}

/** @param {{link:string, title:string, onJoin:() => void}} o */
export function shareScreen(o) {
  const input = h('input', { type: 'text', readonly: true, value: o.link, 'data-testid': 'share-link', 'aria-label': 'Meeting link' });
  const status = h('span', { role: 'status', 'aria-live': 'polite', class: 'muted' });
  return h('div', { class: 'center' }, brand(), h('div', { class: 'card' },
    h('h1', {}, o.title),
    h('p', {}, 'Share this link with the people you invite:'),
    h('div', { class: 'row' }, input, h('button', { onclick: async () => {
      input.select();
      try { await navigator.clipboard.writeText(o.link); status.textContent = 'Link copied.'; } catch { status.textContent = 'Select the link and copy it.'; }
    } }, 'Copy')), status,
    h('button', { class: 'primary', 'data-testid': 'share-join', onclick: o.onJoin }, 'Join now')));
}

/**
 * Device preview and choice before joining.
 * @param {{title:string, name:string, onJoin:(o:{displayName:string, stream:MediaStream|null, micOn:boolean, camOn:boolean}) => void, onBack:() => void}} o
 */
export function preJoinScreen(o) {
  const video = h('video', { autoplay: true, playsinline: true, muted: true, 'aria-label': 'Your camera preview' });
  video.muted = true;
  const meter = h('div', { class: 'meter', role: 'meter', 'aria-label': 'Microphone level', 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '0' }, h('i'));
  const camSel = h('select', { 'data-testid': 'camera-select' });
  const micSel = h('select', { 'data-testid': 'mic-select' });
  const name = h('input', { type: 'text', value: o.name, maxlength: 60, 'data-testid': 'prejoin-name' });
  const micOn = h('input', { type: 'checkbox', checked: true, id: 'pj-mic', 'data-testid': 'prejoin-mic' });
  const camOn = h('input', { type: 'checkbox', checked: true, id: 'pj-cam', 'data-testid': 'prejoin-cam' });
  const msg = h('p', { class: 'form-error', role: 'alert' });
  const joinBtn = h('button', { class: 'primary', 'data-testid': 'prejoin-join', type: 'submit' }, 'Join meeting');
  let stream = null;
  let stopMeter = () => {};
  const open = async () => {
    stopMeter();
    stream?.getTracks().forEach((t) => t.stop());
    const r = await openDevices({ cameraId: camSel.value || undefined, microphoneId: micSel.value || undefined });
    stream = r.stream;
    msg.textContent = r.error || '';
    video.srcObject = stream;
    const a = stream?.getAudioTracks()[0];
    if (a) stopMeter = levelMeter(a, (l) => { meter.firstChild.style.width = Math.round(l * 100) + '%'; meter.setAttribute('aria-valuenow', String(Math.round(l * 100))); });
    const d = await listDevices().catch(() => ({ cameras: [], microphones: [] }));
    fill(camSel, d.cameras, stream?.getVideoTracks()[0]?.getSettings().deviceId, 'Camera');
    fill(micSel, d.microphones, a?.getSettings().deviceId, 'Microphone');
  };
  let opening = null;
  const reopen = () => { opening = open().catch(() => {}); return opening; };
  camSel.addEventListener('change', reopen);
  micSel.addEventListener('change', reopen);
  const form = h('form', { class: 'card prejoin', onsubmit: async (e) => {
    e.preventDefault();
    // A quick click must not join without devices: wait for the camera/microphone being opened.
    joinBtn.disabled = true;
    await opening;
    stopMeter();
    o.onJoin({ displayName: name.value.trim() || o.name, stream, micOn: micOn.checked, camOn: camOn.checked });
  } },
  h('h1', {}, o.title || 'Join meeting'),
  h('div', { class: 'preview' }, video, meter),
  msg,
  field('Your name in the meeting', name),
  field('Camera', camSel), field('Microphone', micSel),
  h('div', { class: 'field check' }, micOn, h('label', { for: 'pj-mic' }, 'Join with microphone on')),
  h('div', { class: 'field check' }, camOn, h('label', { for: 'pj-cam' }, 'Join with camera on')),
  h('div', { class: 'row' }, h('button', { type: 'button', onclick: () => { stopMeter(); stream?.getTracks().forEach((t) => t.stop()); o.onBack(); } }, 'Back'), joinBtn));
  reopen();
  return h('div', { class: 'center' }, brand(), form);
}

function fill(sel, devices, current, kind) {
  const keep = sel.value;
  sel.replaceChildren(...devices.map((d, i) => h('option', { value: d.deviceId }, d.label || `${kind} ${i + 1}`)));
  if (!devices.length) sel.append(h('option', { value: '' }, `No ${kind.toLowerCase()} found`));
  sel.value = current || keep || (devices[0]?.deviceId ?? '');
}

/** @param {{title:string, onLeave:() => void}} o */
export function waitingScreen(o) {
  return h('div', { class: 'center' }, brand(), h('div', { class: 'card waiting-card', 'data-testid': 'waiting-room' },
    h('div', { class: 'spinner big', 'aria-hidden': 'true' }),
    h('h1', {}, 'Waiting for the host'),
    h('p', { role: 'status', 'aria-live': 'polite' }, `You are in the waiting room of “${o.title || 'the meeting'}”. The host will let you in soon.`),
    h('button', { onclick: o.onLeave }, 'Leave')));
}

/** @param {{kind:string, text:string, onHome:() => void, onRejoin?:() => void}} o */
export function endScreen(o) {
  const titles = { removed: 'You were removed', ended: 'The meeting has ended', denied: 'You were not let in', left: 'You left the meeting', locked: 'The meeting is locked', failed: 'Could not join' };
  return h('div', { class: 'center' }, brand(), h('div', { class: 'card', 'data-testid': 'end-screen', 'data-kind': o.kind },
    h('h1', {}, titles[o.kind] || 'Meeting'),
    h('p', { role: 'alert', 'data-testid': 'end-reason' }, o.text),
    h('div', { class: 'row' },
      o.onRejoin ? h('button', { class: 'primary', onclick: o.onRejoin, 'data-testid': 'rejoin' }, 'Rejoin') : null,
      h('button', { onclick: o.onHome }, 'Back to start'))));
}

function brand() {
  return h('div', { class: 'brand' }, h('span', { class: 'logo', 'aria-hidden': 'true' }), 'Parley');
}
