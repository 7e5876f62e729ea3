// The example app: load the SDK from the controller, sign in (local mode) or use a token, create or join a
// meeting, and show the SDK's typed events. `window.parleyExample` lets tests (CrossOriginSdkIT) watch it.
//
//   embed.html?controller=https://meet.example.org[&meeting=…][&auto=1]

const params = new URLSearchParams(location.search);
const $ = (/** @type {string} */ id) => /** @type {HTMLInputElement} */ (document.getElementById(id));
const EVENTS = ['signaling', 'connection_state', 'admission', 'participant_joined', 'participant_left',
  'participant_removed', 'command_applied', 'media_state', 'notice'];

const example = { events: /** @type {{type:string, payload:any}[]} */ ([]), client: null, meetingId: null, error: null, joined: false };
Object.assign(window, { parleyExample: example });

$('controller').value = params.get('controller') || location.origin;
if (params.get('meeting')) $('meeting').value = params.get('meeting') || '';

function status(text, kind = 'info') {
  const el = $('status');
  el.textContent = text;
  el.dataset.kind = kind;
}

/** @param {string} type @param {any} payload */
function record(type, payload) {
  example.events.push({ type, payload });
  if (type === 'signaling' && payload.state === 'open') example.joined = true;
  const li = document.createElement('li');
  const { event, ...shown } = payload || {};
  li.textContent = `${type} ${JSON.stringify(shown)}`;
  $('log').append(li);
}

async function join() {
  const controller = $('controller').value.replace(/\/+$/, '');
  status('Loading the SDK…');
  // A module URL on the controller: the SDK and its relative imports come from there.
  const { ParleyClient } = await import(`${controller}/sdk/parley-client.js`);
  const client = new ParleyClient({ baseUrl: controller, token: $('token').value.trim() || null });
  example.client = client;
  for (const type of EVENTS) client.on(type, (/** @type {any} */ e) => record(type, e));
  client.on('connection_state', (e) => status(`Connection: ${e.state}${e.reason ? ' (' + e.reason + ')' : ''}`));
  if (!client.token) {
    status('Signing in (local mode)…');
    await client.signInDev('00000000-0000-4000-8000-000000000001', crypto.randomUUID(), $('name').value);
  }
  let meetingId = $('meeting').value.trim();
  if (!meetingId) {
    status('Creating a meeting…');
    meetingId = (await client.createMeeting({ title: 'Embedded example', waitingRoom: false })).meeting_id;
    $('meeting').value = meetingId;
  }
  example.meetingId = meetingId;
  const media = await navigator.mediaDevices?.getUserMedia({ audio: true, video: { width: 640, height: 360 } }).catch(() => null);
  if (media) /** @type {HTMLVideoElement} */ (document.getElementById('self')).srcObject = media;
  client.subscribe((s) => showRemotes(client, s));
  status('Joining…');
  await client.join(meetingId, {
    displayName: $('name').value,
    microphone: media?.getAudioTracks()[0] ?? null,
    camera: media?.getVideoTracks()[0] ?? null,
  });
}

/** One <video> per remote participant's camera, as the SDK attaches them. */
function showRemotes(client, state) {
  for (const pid of Object.keys(state.participants || {})) {
    const stream = client.remoteStream(pid, 'camera');
    let v = /** @type {HTMLVideoElement|null} */ (document.querySelector(`video[data-pid="${CSS.escape(pid)}"]`));
    if (!stream) { v?.remove(); continue; }
    if (!v) {
      v = document.createElement('video');
      v.autoplay = true; v.playsInline = true; v.muted = true; v.dataset.pid = pid;
      v.setAttribute('aria-label', state.participants[pid].display_name || 'participant');
      $('videos').append(v);
    }
    if (v.srcObject !== stream) v.srcObject = stream;
  }
}

function fail(/** @type {any} */ e) {
  example.error = { code: e?.code ?? null, name: e?.name ?? null, message: String(e?.message ?? e) };
  status(`Could not join: ${example.error.message}`, 'error');
  console.error('example: join failed', e);
}

document.getElementById('join')?.addEventListener('submit', (ev) => { ev.preventDefault(); join().catch(fail); });
if (params.get('auto') === '1') join().catch(fail);
