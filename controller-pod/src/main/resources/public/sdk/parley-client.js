// parley-client: the browser SDK of Parley. One ParleyClient per meeting participation.
//
//   const client = new ParleyClient({ token });
//   client.subscribe((state) => render(state));
//   await client.join(meetingId, { displayName, microphone, camera });
//
// See docs/web-client.md for the API, the state machine and the events.

import { ApiClient } from './api.js';
import { SignalingClient } from './signaling.js';
import { MediaSession } from './media.js';
import { Store, initialState, applyEvent, applyRosterDelta, applyRosterSummary, applySnapshot, reapply, MEMBERSHIP_EVENTS, normalParticipant, withNotice, canTransition, isModerator } from './state.js';
import { CommandQueue, isNeverReplayed } from './command-queue.js';
import { ParleyError, describeCode } from './problem.js';
import { uuid, idempotencyKey } from './ids.js';
import { sleep } from './backoff.js';
import { worseQuality } from './quality.js';
import { Emitter, eventsFromControl, eventsFromState } from './events.js';
import { AreaOfInterest } from './aoi.js';
import { E2ee, transformPath } from './e2ee/e2ee.js';
import { JoinTimeline } from './join-timeline.js';

export { ApiClient, SignalingClient, MediaSession, Store, CommandQueue, ParleyError, describeCode, Emitter };
/** @typedef {import('./events.js').ParleyEventMap} ParleyEventMap */

/** Signaling error codes meaning "this media transport cannot go on": get a new generation. */
const MEDIA_ERRORS = new Set(['media_server_unavailable', 'media_server_error', 'stale_generation', 'stale_epoch', 'sfu_unavailable', 'transport_gone', 'transport_failed', 'not_authorized', 'unreachable']);
/**
 * Reasons that prove our SFU is gone (the controller could not reach it, or said it is lost). The next
 * generation must not land on it again: until the controller's registry forgets it (its etcd lease runs
 * out), a new attempt naming it is retried after a short jittered pause.
 */
const SFU_GONE = new Set(['unreachable', 'media_server_lost', 'media_server_unavailable', 'sfu_unavailable']);
/** Nothing received on the subscribe transport for this long (while tracks are assigned) = stalled. */
const STALL_MS = 1000;
/** How long a new generation keeps asking for another SFU than the one that is gone (≥ the SFU lease TTL). */
const FLEE_DEADLINE_MS = 4000;
/** Signaling errors that are handled by reconnecting; not worth a toast. */
const QUIET_ERRORS = new Set(['not_found', 'expired', 'replayed', 'ticket_expired', 'ticket_replayed', 'owner_changed', 'owner_unavailable', 'already_joined']);

/** Final admission states: nothing more can happen in this participation. */
const FINAL = new Set(['removed', 'denied', 'ended']);
/** Refusal codes that mean: you were removed and may not come back. */
const REMOVED_CODES = new Set(['removed', 'participant_removed', 'banned', 'rejoin_forbidden', 'principal_banned']);

/**
 * @typedef {Object} ClientOptions
 * @property {string} [baseUrl='']         controller origin ('' = the page's origin)
 * @property {string|null} [token]         bearer JWT
 * @property {typeof fetch} [fetch]
 * @property {typeof WebSocket} [WebSocketImpl]
 * @property {number} [commandTtlMs=30000] how long an action pressed offline stays valid
 * @property {number} [statsIntervalMs=1000]
 * @property {number} [admissionPollMs=1000] waiting room: how often to ask whether we were admitted
 * @property {boolean|'auto'} [simulcast='auto'] camera as three simulcast encodings (media.js); the SFU's
 *           dynacast then turns off the ones nobody receives (`state.publishLayers`)
 * @property {boolean} [svc=false] camera as one VP9 L3T3_KEY stream (3 spatial × 3 temporal layers) when the
 *           browser offers it, instead of simulcast; the SFU gives each subscriber the layers its tile needs
 * @property {{withholdE2eeKeys?:boolean}} [testHooks] tests only: `withholdE2eeKeys` drops every media key sent
 *           to us (an e2ee meeting then decodes nothing: docs/e2ee.md); also read from `window.__parleyTestHooks`
 *           so a browser test can set it for the web app
 */

export class ParleyClient {
  /** @param {ClientOptions} [opts] */
  constructor(opts = {}) {
    this.opts = opts;
    this.token = opts.token ?? null;
    this.api = new ApiClient({ baseUrl: opts.baseUrl, getToken: () => this.token, fetch: opts.fetch });
    this.store = new Store(initialState());
    /** Typed events (`on`/`off`), derived from the store's changes and the control events (events.js). */
    /** @type {Emitter<ParleyEventMap>} */
    this.events = new Emitter();
    this.store.subscribe((s, prev) => { for (const [type, payload] of eventsFromState(prev, s)) this.events.emit(type, /** @type {any} */ (payload)); });
    this.queue = new CommandQueue({ ttlMs: opts.commandTtlMs, selfId: () => this.state.self.participant_id });
    this.clientInstanceId = uuid();
    /** @type {{microphone:MediaStreamTrack|null, camera:MediaStreamTrack|null, screen:MediaStreamTrack|null}} */
    this.local = { microphone: null, camera: null, screen: null };
    /** participant_id -> {microphone?:MediaStream, camera?:MediaStream, screen?:MediaStream} */
    this.remoteStreams = new Map();
    /** @type {SignalingClient|null} */ this.signaling = null;
    /** @type {MediaSession|null} */ this.media = null;
    this.meetingId = null;
    this.sigOpen = false;
    this.mediaUp = false;
    this.everConnected = false;
    this.pendingTicket = null;
    this.mediaGeneration = 0;
    this.generationSwitching = false;
    this.viewport = [];
    /** setViewport was called: remote videos it does not name are not watched (paged video) */
    this.viewportSet = false;
    /** @type {any} timer handle */ this.viewportTimer = null;
    /** the watched video track ids of the last viewport, sorted and joined: a change is sent without the debounce */
    /** @type {string|null} */ this.viewportWatched = null;
    /** @type {any} timer handle */ this.statsTimer = null;
    /** @type {any} timer handle */ this.rosterTimer = null;
    /** paged roster: the active speakers watched besides the page (`#watchSpeakers`) @type {string[]} */
    this.speakerWatch = [];
    /** paged roster: ids whose roster entries are being fetched (`#learnUnknown`) @type {Set<string>} */
    this.learning = new Set();
    /** @type {Set<Object[]>} membership events heard while a snapshot or roster read is in flight (see #startReading) */
    this.reading = new Set();
    /** paged roster: participants watched besides the roster page (`watchParticipants`) */
    /** @type {string[]} */ this.extraWatch = [];
    this.lastServerSpeakersAt = 0;
    /** @type {{joinClickedAt:number, admittedAt:number, firstRemoteFrameAt:number, generations:Object[], [k:string]:any}} */
    this.metrics = { joinClickedAt: 0, admittedAt: 0, firstRemoteFrameAt: 0, generations: [] };
    /** Admitted → first decoded remote frame, step by step (join-timeline.js); `join_timeline` event when done. */
    this.timeline = new JoinTimeline({ onComplete: (s) => this.events.emit('join_timeline', s) });
    // `online` and `navigator.connection` change often fire together: one ICE restart per burst.
    this.onNetworkChange = () => { clearTimeout(this.networkTimer); this.networkTimer = setTimeout(() => this.#networkChanged(), 250); };
    // Offline: say so at once (the peer connections notice only seconds later); `online` heals.
    /** Area of interest (aoi.js): `setPosition`, the `interest` event, the subscription kept to the interest set. */
    this.aoi = new AreaOfInterest({ send: (m) => this.signaling?.open ? this.signaling.send(m) !== false : false,
      onInterest: (e) => { this.events.emit('interest', e); this.#sendViewport(); } });
    this.onOffline = () => { if (!FINAL.has(this.state.admission)) this.#notice('warning', 'offline', 'You are offline. We will reconnect when the network is back.'); };
  }

  /** Current state (see state.js initialState for its shape). */
  get state() { return this.store.get(); }

  /** @param {(s:Object, prev:Object) => void} fn @returns {() => void} unsubscribe */
  subscribe(fn) { return this.store.subscribe(fn); }

  /**
   * Listen to one typed event (the names and payloads are `ParleyEventMap` in events.js).
   * @template {keyof ParleyEventMap} K
   * @param {K} type
   * @param {(payload: ParleyEventMap[K]) => void} handler
   * @returns {() => void} removes the handler
   */
  on(type, handler) { return this.events.on(type, handler); }

  /**
   * @template {keyof ParleyEventMap} K
   * @param {K} type
   * @param {(payload: ParleyEventMap[K]) => void} handler
   * @returns {() => void}
   */
  once(type, handler) { return this.events.once(type, handler); }

  /**
   * @template {keyof ParleyEventMap} K
   * @param {K} type
   * @param {(payload: ParleyEventMap[K]) => void} handler
   */
  off(type, handler) { this.events.off(type, handler); }

  /** Local mode only: mint a dev token and keep it. */
  async signInDev(tenant, principal, name) {
    const r = await this.api.devToken({ tenant, principal, name });
    this.token = r.token;
    return r.token;
  }

  /**
   * `largeMeetingSize` and `unmutePolicy` as in setLargeMeetingPolicy (left out: the server's defaults, 50 and
   * 'everyone').
   * @param {{title:string, waitingRoom:boolean, encryptionMode?:string, largeMeetingSize?:number|null, unmutePolicy?:string}} m
   * @returns {Promise<{meeting_id:string, status:string, version:number}>}
   */
  createMeeting(m) {
    /** @type {{title:string, waiting_room_enabled:boolean, encryption_mode:string, large_meeting_size?:number|null, unmute_policy?:string}} */
    const body = { title: m.title, waiting_room_enabled: !!m.waitingRoom, encryption_mode: m.encryptionMode || 'transport' };
    if (m.largeMeetingSize !== undefined) body.large_meeting_size = m.largeMeetingSize;
    if (m.unmutePolicy !== undefined) body.unmute_policy = m.unmutePolicy;
    return this.api.createMeeting(body);
  }

  // ------------------------------------------------------------------ joining

  /**
   * Ask to join; wait in the waiting room if needed; then connect signaling and media.
   * Resolves when we are connected, or rejects with a ParleyError (its message is for people).
   * @param {string} meetingId
   * @param {{displayName:string, microphone?:MediaStreamTrack|null, camera?:MediaStreamTrack|null, capabilities?:Object}} o
   */
  async join(meetingId, o) {
    this.meetingId = meetingId;
    this.metrics.joinClickedAt = performance.now();
    this.local.microphone = o.microphone || null;
    this.local.camera = o.camera || null;
    this.#setConnection('connecting');
    this.store.set((s) => ({
      admission: 'joining', meeting: { ...(s.meeting || {}), id: meetingId },
      self: { ...s.self, display_name: o.displayName,
        mic: { on: !!(o.microphone && o.microphone.enabled), reason: null },
        camera: { on: !!(o.camera && o.camera.enabled), reason: null } },
    }));
    let r;
    try {
      // The meeting's mode decides how media is sent: an e2ee meeting needs encoded transforms, and a browser
      // without them is refused here (`e2ee_unsupported`), never joined with clear frames (docs/e2ee.md).
      const m = await this.api.getMeeting(meetingId);
      this.store.set((s) => ({ meeting: { ...(s.meeting || {}), ...m, id: meetingId } }));
      this.encryptionMode = m?.encryption_mode || 'transport';
      if (this.encryptionMode === 'e2ee' && !transformPath()) throw new ParleyError({ status: 422, code: 'e2ee_unsupported' });
      r = await this.api.join(meetingId, {
        client_instance_id: this.clientInstanceId,
        display_name: o.displayName,
        capabilities: o.capabilities || defaultCapabilities(),
      }, { idempotencyKey: this.joinKey || (this.joinKey = idempotencyKey('join')) });
    } catch (e) {
      this.#refused(e);
      throw e;
    }
    this.store.set((s) => ({
      self: { ...s.self, participant_id: String(r.participant_id), participant_version: Number(r.participant_version || 0), role: r.role ? r.role : s.self.role },
    }));
    if (r.joined_muted) this.#joinMuted();
    if (r.admission_state === 'waiting') {
      this.store.set({ admission: 'waiting' });
      await this.#waitForAdmission();
    } else if (r.admission_state === 'admitted') {
      this.store.set({ admission: 'admitted' });
    } else {
      const err = new ParleyError({ status: 403, code: r.admission_state || 'denied' });
      this.#refused(err);
      throw err;
    }
    this.metrics.admittedAt = performance.now();
    this.timeline.mark('admitted', this.metrics.admittedAt);
    await this.#connect();
  }

  /**
   * A large meeting (more participants than its large_meeting_size): we start with microphone and camera off.
   * A client default, not a refusal: under unmute_policy `everyone` the user may turn them on at any time.
   */
  #joinMuted() {
    if (this.local.microphone) this.local.microphone.enabled = false;
    if (this.local.camera) this.local.camera.enabled = false;
    this.store.set((s) => ({ self: { ...s.self, joinedMuted: true, mic: { on: false, reason: 'joined_muted' }, camera: { on: false, reason: 'joined_muted' } } }));
    this.#notice('info', 'joined_muted', 'This is a large meeting: you joined muted with your camera off. Raise your hand or unmute when you want to speak.');
  }

  /**
   * Waiting room: poll our own admission state with a little jitter until admitted or refused. Each poll
   * is one bounded request (no retries inside, a short timeout): the loop itself is the retry, so one
   * slow or lost answer costs one poll period, never the whole wait.
   */
  async #waitForAdmission() {
    const every = this.opts.admissionPollMs ?? 1000;
    const polls = this.metrics.admissionPolls = { sent: 0, answered: 0, failed: 0, lastError: null, lastAnswerAt: 0 };
    for (;;) {
      if (FINAL.has(this.state.admission)) throw new ParleyError({ status: 403, code: this.state.admission });
      if (this.state.admission === 'left') throw new ParleyError({ code: 'left' });
      await sleep(every * (0.75 + Math.random() * 0.5));
      if (this.state.admission === 'left') throw new ParleyError({ code: 'left' });
      let snap;
      polls.sent++;
      try {
        snap = await this.api.snapshot(/** @type {string} */ (this.meetingId), { maxAttempts: 1, timeoutMs: Math.max(2000, every * 3) });
        polls.answered++;
        polls.lastAnswerAt = performance.now();
      } catch (e) {
        polls.failed++;
        polls.lastError = /** @type {any} */ (e)?.code || String(e);
        if (e instanceof ParleyError && !e.retryable) { this.#refused(e); throw e; }
        continue;
      }
      const st = snap?.self?.admission_state;
      if (snap?.meeting_status === 'ended') { const e = new ParleyError({ status: 410, code: 'meeting_ended' }); this.#refused(e); throw e; }
      if (st === 'admitted') { this.store.set({ admission: 'admitted' }); return; }
      // Removed while still waiting = the host denied us (a denied row is stored as removed).
      if (st === 'denied' || st === 'removed') { const e = new ParleyError({ status: 403, code: 'denied' }); this.#refused(e); throw e; }
    }
  }

  /**
   * A connect ticket from the controller. Same attempt (same Idempotency-Key) = same generation with a
   * fresh ticket (socket resume); `fresh: true` = a new attempt naming the current generation, which the
   * controller answers with the next generation (new SFU transport).
   */
  async #requestTransport({ fresh = false } = {}) {
    // An attempt is its key AND its body: resending the key with another body is a 409 by design.
    if (fresh || !this.transportAttempt) {
      this.transportAttempt = {
        key: idempotencyKey('transport'),
        body: { expected_transport_generation: this.transportExpected ?? this.state.transportGeneration, device_key_id: this.clientInstanceId },
      };
    }
    let r;
    this.timeline.mark('transport_requested');
    try {
      r = await this.api.createTransport(/** @type {string} */ (this.meetingId), /** @type {string} */ (this.state.self.participant_id), this.transportAttempt.body,
        { idempotencyKey: this.transportAttempt.key });
    } catch (e) {
      const current = /** @type {any} */ (e)?.raw?.current_transport_generation;
      if (e instanceof ParleyError && (e.code === 'transport_attempt_superseded' || e.code === 'stale_transport_generation') && Number.isFinite(Number(current)) && !fresh) {
        // Our attempt is over (its SFU is gone or someone moved on): start a new one from the current generation.
        this.transportExpected = Number(current);
        return this.#requestTransport({ fresh: true });
      }
      throw e;
    }
    this.timeline.mark('transport_answered');
    this.transportExpected = Number(r.transport_generation);
    this.sfuPod = ticketClaims(r.connect_ticket)?.sfu ?? null;
    const gen = Number(r.transport_generation ?? this.state.transportGeneration);
    this.iceServers = r.ice_servers || this.iceServers || [];
    this.audioTopN = Number(r.audio_top_n) || null;           // top-N audio: how many audio slots to offer
    this.store.set({ transportGeneration: gen, controllerEpoch: r.controller_epoch, region: r.region });
    return { url: wsUrl(r.signaling_endpoint, this.api.baseUrl), ticket: r.connect_ticket, generation: gen, sfu: this.sfuPod };
  }

  async #connect() {
    this.pendingTicket = await this.#requestTransport().catch((e) => { this.#refused(e); throw e; });
    this.signaling = new SignalingClient({
      getTicket: async () => {
        const t = this.pendingTicket || (await this.#requestTransport());
        this.pendingTicket = null;
        return t;
      },
      onMessage: (m) => this.#onSignal(m),
      onEvent: (ev, cursor) => this.handleEvent(ev, cursor),
      onRosterDelta: (m) => this.handleRosterDelta(m),
      onRosterSummary: (m) => this.handleRosterSummary(m),
      // paged roster: a resumed socket watches the same page before anything is replayed to it
      rosterPage: () => (this.state.roster.paged ? { participant_ids: this.#watchIds() } : null),
      onResync: () => this.resync(),
      onState: (st, d) => this.#onSignalingState(st, d),
      WebSocketImpl: this.opts.WebSocketImpl,
    });
    window.addEventListener('online', this.onNetworkChange);
    /** @type {any} */ (navigator).connection?.addEventListener?.('change', this.onNetworkChange);
    window.addEventListener('offline', this.onOffline);
    const connected = /** @type {Promise<void>} */ (new Promise((resolve, reject) => {
      const un = this.subscribe((s) => {
        if (s.connection === 'connected') { un(); resolve(); }
        else if (s.connection === 'failed' || FINAL.has(s.admission)) { un(); reject(new ParleyError({ code: s.connectionReason || s.admission })); }
      });
    }));
    await this.signaling.connect();
    this.#startLoops();
    return connected;
  }

  #onSignalingState(st, d = {}) {
    this.events.emit('signaling', { state: st, resumed: !!d.resumed, code: d.code ?? null });
    if (st === 'open') {
      this.sigOpen = true;
      if (d.roster && typeof d.roster === 'object') {
        // paged roster: the server says whether this socket gets everyone or counts + the watched changes (sticky)
        const paged = this.state.roster.paged || d.roster.paged === true;
        this.store.set((s) => ({ roster: { ...s.roster, paged, pageAbove: d.roster.page_above ?? null, count: d.roster.count ?? s.roster.count } }));
      }
      this.#markStep('socketOpenAt');
      this.timeline.mark('socket_joined');
      this.store.set({ cursor: /** @type {SignalingClient} */ (this.signaling).cursor.value });
      if (this.encryptionMode === 'e2ee') this.#e2eeSession().socketOpen();
      // Same generation and media still alive: a socket resume. Otherwise start media for this generation.
      if (!this.rosterLoaded) {
        // Events only tell what changes after our cursor: load who is already here (and our permissions).
        this.rosterLoaded = true;
        this.resync().catch(() => { this.rosterLoaded = false; });
        this.#followRecording();
      }
      if (!this.media || this.mediaGeneration !== this.state.transportGeneration) this.#startMedia();
      else {
        this.#sendViewport();
        this.flushPending();
        if (this.iceRestartOnOpen) this.#restartIceNow(this.iceRestartOnOpen);
      }
      this.#recompute();
    } else if (st === 'reconnecting') {
      this.sigOpen = false;
      this.#recompute();
    } else if (st === 'failed') {
      this.sigOpen = false;
      const code = d.code || 'reconnect_timeout';
      if (REMOVED_CODES.has(code)) this.#teardown('removed', code);
      else if (code === 'meeting_ended' || code === 'ended') this.#teardown('ended', code);
      else if (code === 'denied' || code === 'admission_denied') this.#teardown('denied', code);
      else {
        this.#setConnection('failed', code);
        this.#notice('error', code, code === 'reconnect_timeout' ? 'Connection lost. We could not reconnect.' : describeCode(code, d.error?.message));
      }
    } else if (st === 'closed') {
      this.sigOpen = false;
    }
  }

  async #startMedia() {
    const gen = this.state.transportGeneration;
    this.media?.close();
    this.media = null;
    this.mediaUp = !!this.retiring && this.retiring.up;
    this.mediaGeneration = gen;
    this.lastMediaAt = performance.now(); // a new transport gets STALL_MS before it counts as silent
    this.lastMediaBytes = -1;
    const media = new MediaSession({
      e2ee: this.encryptionMode === 'e2ee' ? this.#e2eeSession().mediaHooks() : undefined,
      send: (m) => /** @type {SignalingClient} */ (this.signaling).send(m),
      iceServers: this.iceServers,
      audioTopN: this.audioTopN,
      onRemoteTrack: (ref, track) => this.#addRemote(ref, track),
      onRemoteTrackRemoved: (ref, track) => this.#removeRemote(ref, track),
      onTransportState: (st) => {
        if (this.media !== media) return;
        this.mediaUp = st === 'connected';
        if (st === 'connected') { this.#markStep('connectedAt'); this.#retireOld('new_generation_connected'); }
        else if (this.retiring?.up) this.mediaUp = true; // the old generation still carries media
        this.#recompute();
      },
      onNeedNewGeneration: (reason) => { if (this.media === media) this.newGeneration(reason); },
      answerTimeoutMs: 10000,
      simulcast: this.opts.simulcast ?? 'auto',
      svc: this.opts.svc ?? false,
      timeline: this.timeline,
    });
    this.media = media;
    const local = {
      microphone: this.state.self.mic.on && this.state.self.permissions.audio.allowed ? this.local.microphone : null,
      camera: this.state.self.camera.on && this.state.self.permissions.video.allowed ? this.local.camera : null,
    };
    try {
      this.#markStep('offersAt');
      await media.start(local, Object.keys(this.state.participants).length);
      this.#markStep('answersAt');
      if (this.local.screen && this.state.self.screen.on) await media.setSource('screen', this.local.screen);
      this.#sendViewport();
      this.flushPending();
    } catch (e) {
      if (this.media === media && !media.closed) {
        console.warn('media negotiation failed', e);
        // A fresh transport's offer refused as `unreachable`: a dead SFU, or a live one too slow to answer
        // the controller in time (it says the same for both). Not proof enough to flee it: a new
        // generation is requested (paced when switches follow each other quickly).
        this.newGeneration(String(/** @type {any} */ (e)?.message) === 'unreachable' ? 'unreachable_on_start' : 'negotiation_failed');
      }
    }
  }

  /**
   * The SFU is gone, is draining, or ICE cannot recover: get a new transport generation from the
   * controller and reconnect signaling + media with its ticket. Control state continues from our cursor.
   *
   * Make before break: the old peer connections stay open (a draining SFU still forwards) until the
   * new generation is connected, so a planned move has no media gap. When the SFU is gone
   * (SFU_GONE), a ticket for that same SFU means the controller has not noticed yet: ask again shortly
   * instead of connecting to a dead server.
   * @param {string} reason
   * @param {{detail?:string}} [o]
   */
  async newGeneration(reason, o = {}) {
    if (this.generationSwitching || FINAL.has(this.state.admission) || !this.signaling) return;
    this.generationSwitching = true;
    const fleeing = SFU_GONE.has(reason) && (reason !== 'unreachable' || this.#mediaStalled()) ? this.sfuPod : null;
    const step = { reason, detail: o.detail ?? null, at: performance.now(), from: this.state.transportGeneration, fromSfu: this.sfuPod, attempts: 0 };
    console.info(`parley: new transport generation after ${reason}${o.detail ? ' (' + o.detail + ')' : ''}`);
    this.metrics.generations.push(step);
    const old = this.media;
    if (old && !old.closed) {
      // Keep the old session alive but deaf to us: its callbacks no longer steer the client.
      this.#retireOld('replaced');
      this.retiring = { media: old, up: this.mediaUp && !fleeing, timer: setTimeout(() => this.#retireOld('timeout'), 10000) };
    }
    this.media = null;
    this.mediaUp = !!this.retiring?.up;
    this.#recompute();
    try {
      // Switches in quick succession (a refused offer right after connecting) are paced, never a hot loop.
      const prev = this.metrics.generations[this.metrics.generations.length - 2];
      if (prev && step.at - prev.at < 2000) await sleep(300 + Math.random() * 300);
      const deadline = performance.now() + FLEE_DEADLINE_MS;
      for (let attempt = 0; ; attempt++) {
        step.attempts++;
        let t;
        try {
          t = await this.#requestTransport({ fresh: true });
        } catch (e) {
          if (e instanceof ParleyError && !e.retryable) { this.#retireOld('refused'); this.#refused(e); return; }
          if (attempt > 20) { this.#retireOld('failed'); this.#setConnection('failed', 'no_media_server'); return; }
          await sleep(200 + Math.random() * 300);
          continue;
        }
        console.info(`parley: transport attempt ${step.attempts}: generation ${t.generation} on ${t.sfu}`);
        if (fleeing && t.sfu === fleeing && performance.now() < deadline) {
          // The controller still lists the lost SFU (its lease has not run out): ask again soon.
          await sleep(250 + Math.random() * 250);
          continue;
        }
        this.pendingTicket = t;
        break;
      }
      // Make before break only across SFUs: two transports of one participant on the same SFU would
      // publish the same track ids twice, so there the old session goes first.
      if (this.sfuPod === step.fromSfu) this.#retireOld('same_sfu');
      step.ticketAt = performance.now();
      step.toSfu = this.sfuPod;
      step.to = this.state.transportGeneration;
      // The new ticket is bound to the new generation: reconnect the socket with it now (resume keeps the cursor).
      this.signaling.reconnectNow();
    } finally {
      this.generationSwitching = false;
    }
  }

  /** Timeline of the generation switch in progress (metrics.generations), first value wins. */
  #markStep(key) {
    const g = this.metrics.generations[this.metrics.generations.length - 1];
    if (g && g.ticketAt && !g[key]) g[key] = performance.now();
  }

  /** Close the previous generation's peer connections (the new ones carry media now, or we gave up). */
  #retireOld(why) {
    const r = this.retiring;
    if (!r) return;
    this.retiring = null;
    clearTimeout(r.timer);
    const g = this.metrics.generations[this.metrics.generations.length - 1];
    if (g && !g.oldClosedAt) { g.oldClosedAt = performance.now(); g.oldClosedWhy = why; }
    r.media.close();
  }

  /**
   * The network changed (back online, Wi-Fi -> cellular): reconnect the socket at once if it is down
   * and restart ICE on both peer connections (new local candidates). If the restart does not connect,
   * MediaSession asks for a new generation.
   */
  #networkChanged(why = 'network_change') {
    if (FINAL.has(this.state.admission) || !this.signaling) return;
    console.info(`parley: ${why}: restarting ICE`);
    this.metrics.networkChanges = (this.metrics.networkChanges || 0) + 1;
    if (!this.media || this.media.closed) return;
    if (!this.signaling.open) {
      // The restart's offers travel on the socket: restart once it is back (right after this reconnect).
      this.iceRestartOnOpen = why;
      this.signaling.reconnectNow();
      return;
    }
    this.#restartIceNow(why);
  }

  #restartIceNow(why) {
    this.iceRestartOnOpen = null;
    this.metrics.iceRestarts = (this.metrics.iceRestarts || 0) + 1;
    this.media?.restartIce(why);
  }

  /** The e2ee key session and frame worker of this participation (made once; follows the roster). */
  #e2eeSession() {
    if (!this.e2ee) {
      const e2ee = new E2ee(/** @type {string} */ (this.meetingId), {
        send: (m) => !!this.signaling?.send(m),
        selfId: () => String(this.state.self.participant_id),
        epoch: () => Number(this.state.controllerEpoch),
        publish: (status) => this.store.set({ e2ee: status }),
      }, { withholdKeys: !!(this.opts.testHooks ?? /** @type {any} */ (globalThis).__parleyTestHooks)?.withholdE2eeKeys });
      this.e2ee = e2ee;
      const follow = (s) => { if (this.e2ee === e2ee) e2ee.setRoster(Object.keys(s.participants || {})); };
      this.subscribe(follow);
      follow(this.state);
    }
    return this.e2ee;
  }

  // ------------------------------------------------------------------ events

  #onSignal(m) {
    if (this.e2ee?.handle(m)) return;
    if (this.media && this.media.handleMessage(m)) return;
    if (m.type === 'error') {
      console.warn(`parley: signaling error ${m.code}: ${m.detail || m.message || ''}`);
      if (MEDIA_ERRORS.has(m.code)) {
        // An offer was refused: the SFU behind this generation is gone or the generation is stale.
        if (this.generationSwitching || !this.media) return;
        const negotiating = this.media.pendingAnswers.size > 0;
        this.media.failPending(m.code);
        // `unreachable` also means "the SFU answered the controller too slowly" (a loaded but live SFU) and
        // comes for viewport updates too: only with no media arriving is it a dead SFU worth a new generation.
        if (m.code === 'unreachable' && !(negotiating && this.#mediaStalled())) return;
        this.newGeneration(m.code, { detail: m.detail || m.message });
        return;
      }
      if (m.code && !QUIET_ERRORS.has(m.code)) this.#notice('error', m.code, describeCode(m.code, m.detail || m.message));
    } else if (m.type === 'transport_failed' || m.type === 'reconnect_required' || m.type === 'new_generation_required') {
      // e.g. {type:'new_generation_required', reason:'sfu_draining', sfu_pod, transport_generation}: ignore it
      // when it is about a generation we already left.
      const g = Number(m.transport_generation);
      if (Number.isFinite(g) && g < this.state.transportGeneration) return;
      if (m.sfu_pod && this.sfuPod && m.sfu_pod !== this.sfuPod) return;
      this.newGeneration(m.type, { detail: m.reason });
    } else if (m.type === 'joined' && m.snapshot) {
      this.store.set((s) => applySnapshot(s, m.snapshot, m.snapshot.roster));
    }
  }

  /**
   * Apply one control event, in cursor order (the signaling client calls this; exposed for custom
   * transports and tests). Local enforcement (a revoked microphone) happens here.
   * @param {Object} ev @param {string|null} [cursor]
   */
  handleEvent(ev, cursor) {
    if (ev.volatile && this.e2ee?.handle(ev)) return;
    if (!ev.volatile) console.debug(`parley: event ${cursor} ${ev.type} ${ev.participant_id ?? ''} ${ev.admission_state ?? ''}`);
    const before = this.state;
    const { state, effects } = applyEvent(before, ev);
    this.#heardWhileReading([ev]);
    this.store.set(cursor ? { ...state, cursor } : state);
    if (ev.type === 'active_speakers') {
      this.lastServerSpeakersAt = performance.now();
      if (this.state.roster.paged) this.#watchSpeakers();
    }
    if (ev.type === 'interest') this.aoi.applyInterest(ev);
    if (ev.type === 'slot_assignments' && this.media) this.media.applyWholeSlotMap(ev.slot_assignments ?? ev.assignments, ev.slot_version);
    if (ev.type === 'slot_delta' && this.media) this.media.applySlotDelta(ev);
    if (ev.type === 'media_server_lost' && (this.media || this.retiring) && (!this.sfuPod || ev.detail === this.sfuPod)) this.newGeneration('media_server_lost', { detail: ev.detail });
    if (ev.type === 'new_generation_required') this.#onSignal({ ...ev, type: 'new_generation_required', sfu_pod: ev.sfu_pod ?? ev.detail });
    if (ev.type === 'recording_state') this.#followRecording();
    if (ev.type === 'publisher_layers') this.#applyPublisherLayers(ev);
    if (['track_published', 'track_unpublished'].includes(ev.type) && String(ev.participant_id ?? ev.detail) !== this.state.self.participant_id) {
      this.#refreshSubscriptionsSoon();
      // paged video: a new video off the page is said to be unwatched at once (the SFU gave it a free slot)
      if (this.viewportSet && ev.type === 'track_published') this.setViewport(this.viewport);
    }
    if (['transport_replaced', 'transport_closed', 'transport_failed'].includes(ev.type) && String(ev.participant_id ?? ev.detail) === this.state.self.participant_id
        && Number(ev.transport_generation ?? this.state.transportGeneration) >= this.state.transportGeneration) {
      this.newGeneration(ev.type);
    }
    this.#runEffects(effects);
    const n = Object.keys(this.state.participants).length;
    if (n !== Object.keys(before.participants).length) this.#refreshSubscriptionsSoon();
    for (const [type, payload] of eventsFromControl(ev, cursor ?? null)) this.events.emit(type, /** @type {any} */ (payload));
  }

  /**
   * Apply a `roster_delta` (joins and departures of one batch window, in cursor order): one state update for the
   * whole batch, then the typed events of each change as if it had come alone.
   * @param {Object} msg
   */
  handleRosterDelta(msg) {
    const before = this.state;
    const { state, effects, events } = applyRosterDelta(before, msg);
    this.#heardWhileReading(events);
    this.store.set({ ...state, cursor: msg.cursor });
    this.#runEffects(effects);
    if (Object.keys(this.state.participants).length !== Object.keys(before.participants).length) this.#refreshSubscriptionsSoon();
    for (const ev of events) for (const [type, payload] of eventsFromControl(ev, msg.cursor)) this.events.emit(type, /** @type {any} */ (payload));
  }

  /**
   * Apply a `roster_summary` (paged roster): the meeting's counts and the changes of the participants we watch,
   * in cursor order when it has a range (`cursor` moves), else counts only.
   * @param {Object} msg
   */
  handleRosterSummary(msg) {
    const before = this.state;
    const { state, effects, events } = applyRosterSummary(before, msg);
    this.#heardWhileReading(events);
    this.store.set(msg.cursor ? { ...state, cursor: msg.cursor } : state);
    this.#runEffects(effects);
    if (!before.roster.paged && this.rosterLoaded) this.rosterPage({}).catch(() => {}); // just turned paged: watch page 1
    if (Object.keys(this.state.participants).length !== Object.keys(before.participants).length) this.#refreshSubscriptionsSoon();
    for (const ev of events) for (const [type, payload] of eventsFromControl(ev, msg.cursor ?? null)) this.events.emit(type, /** @type {any} */ (payload));
  }

  /**
   * One page of the roster from `GET …/participants` (ordered by participant id; `cursor` from the previous page's
   * `next_cursor`, none = the first page), kept in `state.roster.page` and merged into `state.participants`. In a
   * paged meeting the socket then watches this page (`roster_page`): its people's joins, departures and changes
   * arrive live, everyone else is counted in `state.roster.count`.
   * @param {{cursor?:string|null, limit?:number}} [o]
   * @returns {Promise<{participants:Object[], next_cursor:string|null}>}
   */
  async rosterPage(o = {}) {
    const limit = Math.min(500, Math.max(1, Math.floor(o.limit ?? this.state.roster.page?.limit ?? 50)));
    const heard = this.#startReading();
    let r;
    try {
      r = await this.api.participants(/** @type {string} */ (this.meetingId), o.cursor ?? undefined, limit);
    } finally {
      this.#stopReading(heard);
    }
    const list = (r.participants || r.items || []).filter((p) => String(p.participant_id) !== this.state.self.participant_id);
    const ids = list.map((p) => String(p.participant_id));
    this.store.set((s) => {
      const participants = { ...s.participants };
      for (const p of list) {
        const id = String(p.participant_id);
        if (p.admission_state === 'admitted') participants[id] = normalParticipant(p, participants[id] || {});
        else delete participants[id];
      }
      return reapply({ ...s, participants, roster: { ...s.roster, page: { cursor: o.cursor ?? null, next: r.next_cursor ?? null, limit, ids } } }, heard);
    });
    this.#sendRosterPage();
    return { participants: list, next_cursor: r.next_cursor ?? null };
  }

  /**
   * Participants to watch besides the roster page (e.g. the speakers on the stage), paged roster only; at most
   * 200 ids are watched in all.
   * @param {string[]} ids
   */
  watchParticipants(ids) {
    this.extraWatch = [...new Set((ids || []).map(String))];
    this.#sendRosterPage();
    this.#learnUnknown(this.extraWatch);
  }

  /**
   * Paged roster: the active speakers are watched too, and the ones off our page we know nothing of are fetched
   * (`GET …/participants?ids=`), so the stage can promote them into view as in a small meeting.
   */
  #watchSpeakers() {
    const ids = this.state.activeSpeakers.filter((id) => id !== this.state.self.participant_id);
    if (ids.join() !== this.speakerWatch.join()) {
      this.speakerWatch = ids;
      this.#sendRosterPage();
    }
    this.#learnUnknown(ids); // also after a snapshot dropped them: nothing is fetched for people we know
  }

  /** Fetches the roster entries of the admitted participants among `ids` that are not in `state.participants`. */
  #learnUnknown(ids) {
    if (!this.state.roster.paged || !this.meetingId) return;
    const self = this.state.self.participant_id;
    const unknown = ids.filter((id) => id !== self && !this.state.participants[id] && !this.learning.has(id)).slice(0, 200);
    // the server takes 100 ids a request (its request-line limit)
    for (let i = 0; i < unknown.length; i += 100) this.#fetchEntries(unknown.slice(i, i + 100));
  }

  /** @param {string[]} unknown at most 100 ids */
  #fetchEntries(unknown) {
    const self = this.state.self.participant_id;
    for (const id of unknown) this.learning.add(id);
    this.api.participantsByIds(/** @type {string} */ (this.meetingId), unknown).then((r) => {
      const list = (r.participants || []).filter((p) => p.admission_state === 'admitted' && String(p.participant_id) !== self);
      if (!list.length) return;
      this.store.set((s) => {
        const participants = { ...s.participants };
        for (const p of list) { const id = String(p.participant_id); if (!participants[id]) participants[id] = normalParticipant(p, {}); }
        return { participants };
      });
    }).catch((e) => console.debug(`parley: could not fetch watched participants: ${e?.message || e}`))
      .finally(() => { for (const id of unknown) this.learning.delete(id); });
  }

  /** The ids the socket watches: the page shown, the extra ones, the active speakers (bounded as the server bounds them). */
  #watchIds() {
    return [...new Set([...(this.state.roster.page?.ids || []), ...(this.extraWatch || []), ...(this.speakerWatch || [])])].slice(0, 200);
  }

  #sendRosterPage() {
    if (!this.state.roster.paged || !this.signaling?.open) return;
    this.store.set((s) => ({ roster: { ...s.roster, watch: this.#watchIds() } }));
    this.signaling.send({ type: 'roster_page', participant_ids: this.#watchIds() });
  }

  /**
   * Dynacast from the SFU: turn our simulcast encodings nobody receives off (and back on), then show the
   * result in `state.publishLayers` (source -> {rids, active, maxSpatialLayer, changes, at}). A message
   * about a transport generation we already left is ignored.
   */
  #applyPublisherLayers(ev) {
    const media = this.media;
    if (!media) return;
    const g = Number(ev.transport_generation);
    if (Number.isFinite(g) && g > 0 && g < this.state.transportGeneration) return;
    media.applyPublisherLayers(ev).then((r) => {
      if (r && this.media === media) this.store.set({ publishLayers: { ...media.layerState } });
    }).catch((e) => console.warn(`parley: could not change simulcast encodings: ${e?.message || e}`));
  }

  /** Roster or tracks changed: re-offer the subscribe side (debounced) to get fresh slot assignments. */
  #refreshSubscriptionsSoon() {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => {
      this.media?.refreshSubscriptions(Object.keys(this.state.participants).length)
        .then((done) => { if (done === false) this.#refreshSubscriptionsSoon(); })
        .catch(() => {});
    }, 150);
  }

  #runEffects(effects) {
    for (const e of effects) {
      switch (e.type) {
        case 'enforce_off': this.#enforceOff(e.source); break;
        case 'permission_granted':
          // Never turn anything on by ourselves (seed 000): only say that it is allowed again.
          this.#notice('info', 'permission_granted', e.source === 'audio' ? 'The host allows you to unmute. Your microphone stays off until you turn it on.' : `You may share your ${e.source === 'video' ? 'camera' : 'screen'} again.`);
          break;
        case 'unmute_requested': this.#notice('info', 'unmute_requested', 'The host asks you to unmute.'); break;
        case 'speak_allowed':
          // like permission_granted: never turn the microphone on by ourselves
          this.#notice('info', 'speak_allowed', e.allowed ? 'The host allows you to speak. Your microphone stays off until you turn it on.'
            : 'You may no longer speak.');
          break;
        case 'hand_lowered_by_moderator': this.#notice('info', 'hand_lowered', 'A host lowered your hand.'); break;
        case 'mute_all':
          if (this.state.self.mic.on) {
            if (this.local.microphone) this.local.microphone.enabled = false;
            this.media?.setSource('microphone', null).catch(() => {});
            this.store.set((s) => ({ self: { ...s.self, mic: { on: false, reason: 'mute_all' } } }));
          }
          this.#notice('info', 'mute_all', e.allowSelfUnmute ? 'The host muted everyone. You can unmute yourself.' : 'The host muted everyone.');
          break;
        case 'removed': this.#teardown('removed', e.reason); break;
        case 'denied': this.#teardown('denied', e.reason); break;
        case 'ended': this.#teardown('ended', 'meeting_ended'); break;
        default: break;
      }
    }
  }

  /** A source we may no longer send: stop it locally at once and say why. */
  #enforceOff(source) {
    const key = source === 'audio' ? 'microphone' : source === 'video' ? 'camera' : 'screen';
    const stateKey = source === 'audio' ? 'mic' : source === 'video' ? 'camera' : 'screen';
    const track = this.local[key];
    if (track) track.enabled = false;
    if (key === 'screen' && track) { track.stop(); this.local.screen = null; }
    this.media?.setSource(key, null).catch(() => {});
    this.store.set((s) => ({ self: { ...s.self, [stateKey]: { on: false, reason: 'permission_revoked' } } }));
    this.#notice('warning', 'permission_revoked',
      source === 'audio' ? 'The host muted you. You cannot unmute until the host allows it.'
        : source === 'video' ? 'The host turned off your camera.' : 'The host stopped your screen share.');
  }

  /**
   * The snapshot and the roster are read models: an answer can predate events this socket already applied (a
   * participant admitted while the read was on its way, or not yet projected). Events heard while a read is in
   * flight are kept and applied again on top of its answer, so the answer never takes back what they said.
   * @returns {Object[]}
   */
  #startReading() {
    const heard = [];
    this.reading.add(heard);
    return heard;
  }

  #stopReading(heard) { this.reading.delete(heard); }

  #heardWhileReading(events) {
    if (this.reading.size === 0) return;
    const membership = events.filter((ev) => MEMBERSHIP_EVENTS.has(ev.type));
    for (const heard of this.reading) heard.push(...membership);
  }

  /** Replace local knowledge with a snapshot (+ roster); returns the snapshot's cursor. */
  async resync() {
    const heard = this.#startReading();
    let snap, roster;
    try {
      [snap, roster] = await Promise.all([this.api.snapshot(/** @type {string} */ (this.meetingId)), this.#roster().catch(() => null)]);
    } finally {
      this.#stopReading(heard);
    }
    const before = this.state;
    const next = reapply(applySnapshot(before, snap, roster), heard);
    console.debug(`parley: snapshot ${snap.control_cursor} roster ${roster ? roster.participants.map((p) => p.participant_id + '/' + p.admission_state).join(',') : 'unavailable'}`);
    this.store.set(next);
    if (before.self.permissions.audio.allowed && !next.self.permissions.audio.allowed) this.#enforceOff('audio');
    if (FINAL.has(next.admission) && !FINAL.has(before.admission)) this.#teardown(next.admission, next.admission);
    return snap.control_cursor ?? null;
  }

  /** All roster pages (bounded: big meetings page through `next_cursor`); paged roster: the page shown. */
  async #roster() {
    if (this.state.roster.paged) {
      const pg = this.state.roster.page;
      const r = await this.api.participants(/** @type {string} */ (this.meetingId), pg?.cursor ?? undefined, pg?.limit ?? 50);
      const participants = r.participants || r.items || [];
      const ids = participants.map((p) => String(p.participant_id)).filter((id) => id !== this.state.self.participant_id);
      this.store.set((s) => ({ roster: { ...s.roster, page: { cursor: pg?.cursor ?? null, next: r.next_cursor ?? null, limit: pg?.limit ?? 50, ids } } }));
      this.#sendRosterPage();
      return { participants };
    }
    const participants = [];
    let cursor;
    for (let page = 0; page < 20; page++) {
      const r = await this.api.participants(/** @type {string} */ (this.meetingId), cursor);
      participants.push(...(r.participants || r.items || []));
      cursor = r.next_cursor;
      if (!cursor) break;
    }
    return { participants };
  }

  // ------------------------------------------------------------------ local devices

  /**
   * Turn the microphone on or off. Off always works at once. On is refused (with a notice saying why)
   * when the host revoked audio or when we are offline: an unmute is never queued or replayed.
   * @param {boolean} on @returns {Promise<boolean>} whether the microphone is now in the wanted state
   */
  async setMicrophone(on) { return this.#setDevice('microphone', 'mic', 'audio', on); }

  /** @param {boolean} on */
  async setCamera(on) { return this.#setDevice('camera', 'camera', 'video', on); }

  async #setDevice(key, stateKey, perm, on) {
    const track = this.local[key];
    if (!on) {
      if (track) track.enabled = false;
      await this.media?.setSource(key, null);
      this.store.set((s) => ({ self: { ...s.self, [stateKey]: { on: false, reason: 'self' } } }));
      return true;
    }
    if (!this.state.self.permissions[perm].allowed) {
      this.#notice('warning', 'permission_revoked', key === 'microphone' ? 'You cannot unmute: the host turned off your microphone.' : 'You cannot turn on your camera: the host turned it off.');
      return false;
    }
    if (this.meetingId && this.state.connection !== 'connected' && this.state.admission === 'admitted') {
      this.#notice('warning', 'not_replayed', `You are offline, so ${key === 'microphone' ? 'unmute' : 'camera on'} was not done. Press it again when you are reconnected.`);
      return false;
    }
    if (!track) { this.#notice('warning', 'no_device', `No ${key} is selected.`); return false; }
    track.enabled = true;
    await this.media?.setSource(key, track);
    this.store.set((s) => ({ self: { ...s.self, [stateKey]: { on: true, reason: null }, ...(key === 'microphone' ? { } : {}) }, ...(key === 'microphone' ? { unmuteRequest: null } : {}) }));
    return true;
  }

  /** Switch to another device track (device choice); keeps the on/off state. */
  async replaceDevice(key, track) {
    const old = this.local[key];
    this.local[key] = track;
    const on = this.state.self[key === 'microphone' ? 'mic' : 'camera'].on;
    track.enabled = on;
    if (on) await this.media?.setSource(key, track);
    if (old && old !== track) old.stop();
  }

  /**
   * Share the screen: published on the screen transceiver and declared `source: screen` in the publish offer,
   * so subscribers' SFU budget puts it before cameras. `track` (optional) is a video track to share instead of
   * asking the browser for a screen (a canvas capture, a test source).
   * @param {MediaStreamTrack} [track] @returns {Promise<boolean>}
   */
  shareScreen(track) { return this.startScreenShare(track); }

  /** Start sharing the screen (asks the browser for a screen unless given a track). */
  async startScreenShare(given) {
    if (!this.state.self.permissions.screen.allowed) { this.#notice('warning', 'permission_revoked', 'The host does not allow you to share your screen.'); return false; }
    if (this.state.connection !== 'connected') { this.#notice('warning', 'not_replayed', 'You are offline, so screen sharing did not start.'); return false; }
    let stream;
    if (given) stream = new MediaStream([given]);
    else try { stream = await navigator.mediaDevices.getDisplayMedia({ video: { frameRate: 15 }, audio: false }); } catch (e) {
      this.#notice('warning', 'screen_denied', 'Screen sharing was cancelled or not allowed by the browser.');
      return false;
    }
    const track = stream.getVideoTracks()[0];
    track.contentHint = 'detail';
    this.local.screen = track;
    track.addEventListener('ended', () => this.stopScreenShare());
    await this.media?.setSource('screen', track);
    this.store.set((s) => ({ self: { ...s.self, screen: { on: true, reason: null } } }));
    return true;
  }

  async stopScreenShare() {
    const t = this.local.screen;
    this.local.screen = null;
    if (t) t.stop();
    await this.media?.setSource('screen', null);
    this.store.set((s) => ({ self: { ...s.self, screen: { on: false, reason: 'self' } } }));
  }

  /** The person answered the host's "please unmute" request. Only consent unmutes. */
  async answerUnmuteRequest(accept) {
    this.store.set({ unmuteRequest: null });
    if (accept) return this.setMicrophone(true);
    return false;
  }

  /**
   * Our position in an area-of-interest meeting (aoi.js; at most one per 100 ms is sent, the newest wins).
   * @param {number} x @param {number} y
   */
  setPosition(x, y) { this.aoi.setPosition(x, y); }

  /**
   * Tell the SFU what is actually shown: track ids with tile size and frame rate (seed 000).
   * @param {{track_id:string, max_width:number, max_height:number, max_fps:number}[]} tracks
   */
  setViewport(tracks) {
    const watched = tracks.filter((t) => t.max_width > 0 && t.max_height > 0).map((t) => t.track_id).sort().join();
    const changed = watched !== this.viewportWatched;
    this.viewport = tracks;
    this.viewportSet = true;
    this.viewportWatched = watched;
    clearTimeout(this.viewportTimer);
    // another set of videos (a page turned, a tile added or gone) goes out now: the SFU switches its slots and asks
    // for keyframes at once; only size changes (a window being dragged) wait 150 ms for the next one
    if (changed) this.#sendViewport();
    else this.viewportTimer = setTimeout(() => this.#sendViewport(), 150);
  }

  /**
   * Pin a remote participant (all its videos) or one track id, or `null` to unpin: the subscription is re-sent
   * with `pinned: true` on those tracks, so the SFU gives them the budget before the active speaker's camera
   * (a screen share still comes first). Entries the viewport marks `pinned` stay pinned too.
   * @param {string|null} participantOrTrackId
   */
  pin(participantOrTrackId) {
    this.pinned = participantOrTrackId ? String(participantOrTrackId) : null;
    clearTimeout(this.viewportTimer);
    this.#sendViewport();
  }

  /** The subscription as sent: the viewport with pins applied; a track pinned before and now out of view is unpinned. */
  subscription() {
    const id = this.pinned;
    const pinnedNow = (tr) => !!tr.pinned || (id != null && (tr.track_id === id || tr.track_id.startsWith(`${id}:`)));
    const tracks = this.aoi.filter(this.viewport.map((tr) => {
      const { pinned, ...rest } = tr;
      return pinnedNow(tr) ? { ...rest, pinned: true } : rest;
    }));
    const named = new Set(tracks.map((tr) => tr.track_id));
    const unwatched = (id) => { if (!named.has(id)) { named.add(id); tracks.push({ track_id: id, max_width: 0, max_height: 0, max_fps: 0 }); } };
    for (const old of this.sentPins ?? []) unwatched(old);
    // paged video: every remote video not in the viewport is not watched (0 x 0): the SFU frees its slot
    // (area of interest: a video outside the interest set is left out of the viewport above, so it is not watched)
    if (this.viewportSet) for (const id of this.#remoteVideoIds()) unwatched(id);
    return tracks;
  }

  /** Track ids of the remote cameras and screens we know of: published (roster) or on one of our slots now. */
  #remoteVideoIds() {
    const out = new Set();
    for (const p of Object.values(this.state.participants)) {
      for (const src of ['camera', 'screen']) {
        const id = p.tracks?.[src]?.trackId;
        if (id) out.add(id);
      }
    }
    for (const ref of this.media?.slots?.values() ?? []) if (ref.kind === 'video') out.add(ref.trackId);
    return out;
  }

  #sendViewport() {
    if (!this.signaling?.open) return;
    const tracks = this.subscription();
    if (!tracks.length) return;
    if (this.signaling.send({ type: 'subscribe', tracks }) !== false) this.sentPins = tracks.filter((t) => t.pinned).map((t) => t.track_id);
  }

  // ------------------------------------------------------------------ host commands

  /**
   * Send a meeting command (desired state, never a toggle). Pressed offline: kept with its idempotency
   * key until it expires, sent once we are back, except commands that would start sending or
   * recording, which are dropped with a notice.
   * @param {string} type @param {Object} [fields]
   * @returns {Promise<{command_id?:string, state?:string, media_enforcement?:string, dropped?:string}>}
   */
  async command(type, fields = {}) {
    const body = { type, ...fields };
    if (body.participant_id && body.expected_participant_version === undefined) {
      const p = this.state.participants[body.participant_id] || this.state.waiting[body.participant_id];
      if (p) body.expected_participant_version = p.version;
      else if (body.participant_id === this.state.self.participant_id) body.expected_participant_version = this.state.self.participant_version;
    }
    if (body.expected_participant_version === null) delete body.expected_participant_version;
    const cmd = this.queue.make(body);
    // Offline means the control plane is out of reach (socket down or browser offline), not "media is
    // reconnecting": commands are REST calls and must not wait for an ICE restart (a host's Admit pressed
    // during a media hiccup used to sit in the queue until the socket happened to reopen).
    if (!this.#controlReachable() && this.state.admission === 'admitted') {
      if (isNeverReplayed(body, this.state.self.participant_id)) {
        this.#notice('warning', 'not_replayed', describeCode('offline') + ' "' + label(type) + '" was not sent.');
        return { dropped: 'not_replayed' };
      }
      this.queue.enqueue(cmd);
      this.#notice('info', 'queued', `"${label(type)}" will be sent when the connection is back (if within ${Math.round(this.queue.ttlMs / 1000)} s).`);
      return new Promise((resolve) => { cmd.settle = (r) => resolve(r.ok ? r.result : { dropped: r.dropped || 'failed' }); });
    }
    return this.#sendCommand(cmd);
  }

  #controlReachable() {
    if (globalThis.navigator?.onLine === false) return false;
    return this.state.connection === 'connected' || (!!this.signaling?.open && this.sigOpen);
  }

  async #sendCommand(cmd) {
    let r;
    try {
      r = await this.api.command(/** @type {string} */ (this.meetingId), cmd.body, { idempotencyKey: cmd.key });
    } catch (e) {
      if (e instanceof ParleyError && (e.status === 409 || e.code === 'version_conflict' || e.code === 'stale_version')) {
        this.resync().catch(() => {});
      }
      this.#notice('error', /** @type {any} */ (e).code || 'error', `${label(cmd.body.type)}: ${/** @type {any} */ (e).message}`);
      cmd.settle?.({ ok: false, error: e });
      throw e;
    }
    const id = r.command_id;
    if (id) {
      this.store.set((s) => ({ commands: { ...s.commands, [id]: {
        ...(s.commands[id] || {}), type: cmd.body.type, participant_id: cmd.body.participant_id ?? null,
        state: s.commands[id]?.state === 'applied' ? 'applied' : r.state,
        media_enforcement: s.commands[id]?.media_enforcement === 'applied' ? 'applied' : r.media_enforcement,
        sentAt: performance.now(),
      } } }));
      if (r.participant_version && cmd.body.participant_id && this.state.participants[cmd.body.participant_id]) {
        this.store.set((s) => ({ participants: { ...s.participants, [cmd.body.participant_id]: { ...s.participants[cmd.body.participant_id], version: Math.max(s.participants[cmd.body.participant_id].version, Number(r.participant_version)) } } }));
      }
      if (r.media_enforcement === 'pending') this.#pollCommand(id);
    }
    cmd.settle?.({ ok: true, result: r });
    return r;
  }

  /** Follow a command until the media plane applied it (events usually win this race). */
  async #pollCommand(id) {
    const until = performance.now() + 15000;
    while (performance.now() < until) {
      const c = this.state.commands[id];
      if (!c || c.state === 'applied' || c.state === 'failed' || c.media_enforcement === 'applied') return;
      await sleep(150);
      try {
        const r = await this.api.getCommand(/** @type {string} */ (this.meetingId), id);
        const st = r.state;
        const me = r.media_enforcement || (st === 'applied' ? 'applied' : undefined);
        this.store.set((s) => ({ commands: { ...s.commands, [id]: { ...s.commands[id], state: st === 'committed' && s.commands[id]?.state === 'applied' ? 'applied' : st, ...(me ? { media_enforcement: me } : {}), ...(st === 'applied' && !s.commands[id]?.appliedAt ? { appliedAt: performance.now() } : {}) } } }));
      } catch { /* keep trying until the deadline */ }
    }
  }

  /** Send what was pressed while offline (called on reconnect): same keys; expired and never-replayed ones dropped with a notice. */
  flushPending() {
    const { send, dropped } = this.queue.drainForReconnect();
    for (const d of dropped) {
      this.#notice('warning', d.reason, `"${label(d.cmd.body.type)}": ${describeCode(d.reason)}`);
      d.cmd.settle?.({ ok: false, dropped: d.reason });
    }
    for (const c of send) this.#sendCommand(c).catch(() => {});
  }

  /** Admit needs no expected version: the server admits only a waiting participant, and admitting twice is a no-op. */
  admit(pid) { return this.command('admit', { participant_id: pid, expected_participant_version: null }); }
  deny(pid) { return this.command('deny', { participant_id: pid }); }
  /** Host mute: revoke the participant's audio publish permission. */
  mute(pid) { return this.command('set_publish', { participant_id: pid, audio: false }); }
  stopVideo(pid) { return this.command('set_publish', { participant_id: pid, video: false }); }
  stopScreen(pid) { return this.command('set_publish', { participant_id: pid, screen: false }); }
  /** Ask to unmute: allows audio again and asks the person; their microphone stays off until they agree. */
  requestUnmute(pid) { return this.command('request_unmute', { participant_id: pid }); }
  remove(pid, allowRejoin = false) { return this.command('remove_participant', { participant_id: pid, allow_rejoin: allowRejoin }); }
  setRole(pid, role) { return this.command('set_role', { participant_id: pid, role }); }
  transferHost(pid) { return this.command('transfer_host', { participant_id: pid }); }
  muteAll(allowSelfUnmute = true) { return this.command('mute_all', { allow_self_unmute: allowSelfUnmute }); }
  lock(locked) { return this.command('lock_meeting', { locked }); }
  endMeeting() { return this.command('end_meeting', {}); }
  startRecording() { return this.command('start_recording', {}); }
  stopRecording() { return this.command('stop_recording', {}); }

  // ------------------------------------------------------------------ large meetings (docs/api.md "Large meetings")

  /** Raise our hand (one per participant: raising it again keeps its place in the queue). */
  raiseHand() { return this.command('raise_hand', {}); }
  /** Lower our own hand, or (moderators) someone else's. @param {string} [pid] */
  lowerHand(pid) { return this.command('lower_hand', pid && pid !== this.state.self.participant_id ? { participant_id: pid, expected_participant_version: null } : {}); }
  /**
   * Moderators: let a participant speak (audio and video allowed, its hand lowered) or take it back. Its
   * microphone stays off until the person turns it on.
   * @param {string} pid @param {boolean} [allowed]
   */
  allowSpeak(pid, allowed = true) { return this.command('allow_speak', { participant_id: pid, allowed, expected_participant_version: null }); }
  /** Moderators: the first raised hand (the longest waiting) may speak; resolves null when no hand is up. */
  allowNextHand() {
    const first = this.state.raisedHands[0];
    return first ? this.allowSpeak(first.participant_id) : Promise.resolve(null);
  }
  /**
   * Moderators: the meeting's policy. `largeMeetingSize` (1..10000, or null = never) — above it attendees join
   * muted with camera off; `unmutePolicy` 'everyone' or 'hosts_and_presenters' (attendees publish nothing until
   * allowed to speak). Fields left undefined stay as they are.
   * @param {{largeMeetingSize?: number|null, unmutePolicy?: 'everyone'|'hosts_and_presenters'}} p
   */
  setLargeMeetingPolicy(p) {
    /** @type {Object<string, unknown>} */
    const f = {};
    if (p.largeMeetingSize !== undefined) f.large_meeting_size = p.largeMeetingSize;
    if (p.unmutePolicy !== undefined) f.unmute_policy = p.unmutePolicy;
    return this.command('set_large_meeting_policy', f);
  }

  /** Can we run host actions? */
  get isModerator() { return isModerator(this.state); }

  // ------------------------------------------------------------------ remote media

  #addRemote(ref, track) {
    const shown = this.remoteStreams.get(ref.participantId)?.[ref.source];
    if (shown && this.retiring && track.muted && !shown.getTracks().includes(track)) {
      // Moving generations: keep showing the old SFU's track until the new one actually delivers media.
      let done = false;
      const swap = () => { if (!done) { done = true; if (this.media?.slots.get(ref.mid)?.trackId === ref.trackId) this.#addRemote0(ref, track); } };
      track.addEventListener('unmute', swap, { once: true });
      setTimeout(swap, 3000);
      return;
    }
    this.#addRemote0(ref, track);
  }

  #addRemote0(ref, track) {
    const cur = this.remoteStreams.get(ref.participantId) || {};
    const stream = new MediaStream([track]);
    this.remoteStreams.set(ref.participantId, { ...cur, [ref.source]: stream });
    this.store.set((s) => {
      const p = s.participants[ref.participantId];
      if (!p) return { remoteTick: (s.remoteTick || 0) + 1 };
      const tracks = { ...p.tracks, [ref.source]: { ...(p.tracks[ref.source] || {}), trackId: ref.trackId, mid: ref.mid, kind: ref.kind, attached: true } };
      return { participants: { ...s.participants, [ref.participantId]: { ...p, tracks } }, remoteTick: (s.remoteTick || 0) + 1 };
    });
  }

  /** @param {import('./slots.js').RemoteTrackRef} ref @param {MediaStreamTrack|null} [track] */
  #removeRemote(ref, track = null) {
    const cur = this.remoteStreams.get(ref.participantId);
    // A retired generation's track going away must not take down what the new generation shows.
    if (track && cur?.[ref.source] && !cur[ref.source].getTracks().includes(track)) return;
    if (cur && cur[ref.source]) {
      const next = { ...cur };
      delete next[ref.source];
      this.remoteStreams.set(ref.participantId, next);
    }
    this.store.set((s) => {
      // a video that is no longer received is no longer "paused" either
      if (Object.values(s.pausedSubscriptions || {}).some((x) => x.participantId === ref.participantId && x.source === ref.source)) {
        s = { ...s, pausedSubscriptions: Object.fromEntries(Object.entries(s.pausedSubscriptions)
          .filter(([, x]) => !(x.participantId === ref.participantId && x.source === ref.source))) };
      }
      const p = s.participants[ref.participantId];
      if (!p || !p.tracks[ref.source]) return { pausedSubscriptions: s.pausedSubscriptions, remoteTick: (s.remoteTick || 0) + 1 };
      const tracks = { ...p.tracks, [ref.source]: { ...p.tracks[ref.source], attached: false, mid: null } };
      return { participants: { ...s.participants, [ref.participantId]: { ...p, tracks } }, pausedSubscriptions: s.pausedSubscriptions, remoteTick: (s.remoteTick || 0) + 1 };
    });
  }

  /** @param {string} pid @param {'microphone'|'camera'|'screen'} source @returns {MediaStream|null} */
  remoteStream(pid, source) { return this.remoteStreams.get(pid)?.[source] || null; }

  // ------------------------------------------------------------------ loops, state, teardown

  #startLoops() {
    clearInterval(this.statsTimer);
    this.statsTimer = setInterval(() => this.#statsTick(), this.opts.statsIntervalMs ?? 500);
    clearInterval(this.rosterTimer);
    // Events keep the roster fresh; a slow re-read heals any event we could not apply (seed 000: TTL backup).
    this.rosterTimer = setInterval(() => {
      if (this.state.connection === 'connected' && this.isModerator) this.resync().catch(() => {});
    }, 10000);
  }

  async #statsTick() {
    if (!this.media) return;
    let st;
    try { st = await this.media.stats(); } catch { return; }
    this.lastStats = st;
    if (!this.metrics.firstRemoteFrameAt && st.tracks.some((t) => t.kind === 'video' && t.framesDecoded > 0)) {
      this.metrics.firstRemoteFrameAt = performance.now();
    }
    this.#syncSlotsIfMissing();
    this.#detectStall(st);
    const patch = { quality: { ...this.state.quality, level: worseQuality(st.level, this.state.quality.serverLevel || 'unknown'), rttMs: st.rttMs, lossPct: st.lossPct, source: 'stats' } };
    // Active speaker: the SFU's report wins; without one for 5 s, use received audio levels.
    if (performance.now() - this.lastServerSpeakersAt > 5000) {
      const loud = st.tracks.filter((t) => t.kind === 'audio' && t.participantId && (t.audioLevel ?? 0) > 0.02)
        .sort((a, b) => (b.audioLevel ?? 0) - (a.audioLevel ?? 0)).map((t) => t.participantId);
      const ids = [...new Set(loud)].slice(0, 3);
      if (ids.join() !== this.state.activeSpeakers.join()) patch.activeSpeakers = ids;
    }
    this.store.set(patch);
  }

  /**
   * Safety net for a lost track_published hint: while an admitted participant has no attached camera or
   * microphone, ask the SFU for the current slot map (`subscribe` answers `subscribed {slot_assignments}`),
   * at most every 2 s.
   */
  #syncSlotsIfMissing() {
    if (!this.signaling?.open || !this.media || this.state.connection !== 'connected') return;
    // top-N audio: most participants are rightly not on an audio slot, so only a missing camera counts then
    const missing = Object.values(this.state.participants).some((p) => !p.tracks?.camera?.attached || (!this.audioTopN && !p.tracks?.microphone?.attached));
    if (!missing || performance.now() - (this.lastSlotSync || 0) < 2000) return;
    this.lastSlotSync = performance.now();
    this.signaling.send({ type: 'subscribe', tracks: this.subscription() });
  }

  /**
   * A dead SFU is silent long before ICE gives up: when the subscribe transport (media, RTCP, STUN
   * answers) has received nothing for STALL_MS while others publish to us, restart ICE at once (a
   * needless restart on a live SFU costs one offer/answer and keeps the connection). If the SFU is
   * gone, the restart's offer is refused and we move to a new transport generation.
   */
  #detectStall(st) {
    const now = performance.now();
    if (st.transportBytes !== this.lastMediaBytes) { this.lastMediaBytes = st.transportBytes; this.lastMediaAt = now; }
    const receiving = this.media && this.state.connection === 'connected' && this.media.slots.size > 0;
    if (!receiving || st.transportBytes !== this.lastTransportBytes) {
      this.lastTransportBytes = st.transportBytes;
      this.lastTransportChange = now;
      return;
    }
    if (now - (this.lastTransportChange ?? now) > STALL_MS && now - (this.lastStallRestart || 0) > 5000) {
      this.lastStallRestart = now;
      console.info(`parley: no media for ${STALL_MS} ms, restarting ICE`);
      this.media?.restartIce('stalled');
    }
  }

  /** Nothing has arrived on the current subscribe transport for STALL_MS (media, RTCP or STUN). */
  #mediaStalled() {
    return performance.now() - (this.lastMediaAt || 0) > STALL_MS;
  }

  #recompute() {
    if (FINAL.has(this.state.admission)) return;
    if (this.state.connection === 'failed') return;
    if (this.sigOpen && this.queue.pending.length) this.flushPending();
    if (this.sigOpen && this.mediaUp) {
      const was = this.state.connection;
      this.everConnected = true;
      this.#setConnection('connected');
      if (was === 'reconnecting') this.#notice('info', 'reconnected', 'Reconnected.');
    } else if (this.everConnected) this.#setConnection('reconnecting');
    else this.#setConnection('connecting');
  }

  /** @param {import('./state.js').ConnectionState} to @param {string|null} [reason] */
  #setConnection(to, reason = null) {
    const from = this.state.connection;
    if (from === to) { if (reason) this.store.set({ connectionReason: reason }); return; }
    if (!canTransition(from, to)) { console.warn(`ignored connection transition ${from} -> ${to}`); return; }
    console.info(`parley: connection ${from} -> ${to}${reason ? ' (' + reason + ')' : ''}`);
    this.store.set({ connection: to, connectionReason: reason });
  }

  #notice(level, code, text) { this.store.set((s) => withNotice(s, level, code, text)); }

  /** A refusal from the API: map its code onto admission state and say it. */
  #refused(e) {
    const code = e?.code || 'network';
    const adm = REMOVED_CODES.has(code) ? 'removed'
      : ['meeting_ended', 'ended'].includes(code) ? 'ended'
      : ['denied', 'admission_denied'].includes(code) ? 'denied'
      : code === 'meeting_locked' || code === 'locked' ? 'locked' : null;
    if (adm && adm !== 'locked') { this.#teardown(adm, code); return; }
    if (adm === 'locked') this.store.set({ admission: 'locked' });
    this.#setConnection('failed', code);
    this.#notice('error', code, e?.message || describeCode(code));
  }

  /** Stop everything we send and receive; the admission state says why. */
  #teardown(admission, code) {
    const text = admission === 'removed' ? describeCode(REMOVED_CODES.has(code) ? code : 'removed') : admission === 'ended' ? describeCode('meeting_ended') : describeCode('denied');
    for (const k of ['microphone', 'camera', 'screen']) { if (this.local[k]) this.local[k].enabled = false; }
    this.local.screen?.stop();
    this.media?.close();
    this.media = null;
    this.#retireOld('closed');
    this.e2ee?.close(); // the worker and every key in it go with the participation
    this.e2ee = null;
    this.signaling?.close();
    this.sigOpen = false;
    this.mediaUp = false;
    clearInterval(this.statsTimer);
    clearInterval(this.rosterTimer);
    this.#removeNetworkListeners();
    // One update, so listeners see the admission together with the reason code.
    this.store.set((s) => ({ admission, connection: 'closed', connectionReason: code || admission,
      self: { ...s.self, mic: { on: false, reason: admission }, camera: { on: false, reason: admission }, screen: { on: false, reason: admission } } }));
    this.#notice('error', code || admission, text);
  }

  #removeNetworkListeners() {
    window.removeEventListener('online', this.onNetworkChange);
    window.removeEventListener('offline', this.onOffline);
    /** @type {any} */ (navigator).connection?.removeEventListener?.('change', this.onNetworkChange);
  }

  /**
   * Recording state for the UI. Control events say what was asked (requested, stop requested); the
   * recorder's progress (starting, recording, ready, failed) lives on the job, so while a recording is
   * in flight the job is read every 2 s.
   */
  async #followRecording() {
    if (this.recordingFollow || !this.meetingId) return;
    this.recordingFollow = true;
    try {
      for (let i = 0; i < 100000; i++) {
        if (FINAL.has(this.state.admission) || this.state.admission === 'left') return;
        let list;
        try { list = await this.api.recordings(this.meetingId, { maxAttempts: 1, timeoutMs: 5000 }); } catch { list = null; }
        if (list) {
          const jobs = list.recordings || [];
          const job = jobs[jobs.length - 1];
          const st = recordingStateOf(job);
          if (st !== this.state.recording.state || (job && job.recording_job_id !== this.state.recording.job_id)) {
            this.store.set({ recording: { state: st, job_id: job?.recording_job_id ?? null, stopRequested: !!job?.stop_requested, download: job?.download_location ?? null } });
          }
          if (!IN_FLIGHT_RECORDING.has(st)) return;
        }
        await sleep(Math.min(10000, 2000 + i * 500));
      }
    } finally {
      this.recordingFollow = false;
    }
  }

  /** Leave the meeting. */
  leave() {
    this.signaling?.close();
    this.media?.close();
    this.media = null;
    this.#retireOld('left');
    this.e2ee?.close();
    this.e2ee = null;
    clearInterval(this.statsTimer);
    clearInterval(this.rosterTimer);
    this.timeline.stop();
    this.#removeNetworkListeners();
    this.store.set({ admission: 'left' });
    this.#setConnection('closed', 'left');
  }

  /** Where the time of this join went, step by step (join-timeline.js): complete once a remote frame is decoded. */
  joinTimeline() { return this.timeline.summary(); }

  /** Numbers for tests and diagnostics (no secrets). */
  debug() {
    return {
      joinTimeline: this.timeline.summary(),
      cursor: this.signaling?.cursor.value ?? null,
      resumes: this.signaling?.resumes ?? 0,
      resumeLog: this.signaling?.resumeLog ?? [],
      generation: this.state.transportGeneration,
      generations: this.metrics.generations,
      metrics: { ...this.metrics },
      idempotencyKeys: [...this.api.sentKeys],
      slots: this.media ? [...this.media.slots.values()] : [],
    };
  }
}

/** Recording jobs still moving: follow them until they settle. */
const IN_FLIGHT_RECORDING = new Set(['requested', 'starting', 'recording', 'finalizing', 'stopping']);

/** The UI state of the newest recording job (none = idle). */
function recordingStateOf(job) {
  if (!job) return 'idle';
  const st = job.state || 'idle';
  if (job.stop_requested && (st === 'requested' || st === 'starting')) return 'stopping';
  if (job.stop_requested && st === 'recording') return 'finalizing';
  return st;
}

/** Claims of a compact JWS, read (not verified: the server verifies) to learn which SFU serves us. */
function ticketClaims(token) {
  try {
    const part = String(token).split('.')[1];
    return JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((part.length + 3) % 4)));
  } catch { return null; }
}

function defaultCapabilities() {
  const vc = (globalThis.RTCRtpReceiver?.getCapabilities?.('video')?.codecs || []).map((c) => c.mimeType.split('/')[1]).filter((x) => ['VP8', 'VP9', 'H264', 'AV1'].includes(x));
  return { video_codecs: [...new Set(vc)].length ? [...new Set(vc)] : ['VP8'], simulcast: false, e2ee: typeof globalThis.RTCRtpScriptTransform === 'function' };
}

/** ws(s) URL of the signaling endpoint; a relative or missing one means the page's origin. */
function wsUrl(endpoint, baseUrl) {
  const origin = baseUrl || globalThis.location.origin;
  const u = new URL(endpoint || '/v1/connect', origin);
  if (u.protocol === 'http:') u.protocol = 'ws:';
  if (u.protocol === 'https:') u.protocol = 'wss:';
  return u.toString();
}

function label(type) {
  return ({ set_publish: 'Mute', admit: 'Admit', deny: 'Deny', remove_participant: 'Remove', set_role: 'Change role',
    transfer_host: 'Make host', mute_all: 'Mute all', lock_meeting: 'Lock', end_meeting: 'End meeting',
    start_recording: 'Start recording', stop_recording: 'Stop recording', request_unmute: 'Ask to unmute',
    raise_hand: 'Raise hand', lower_hand: 'Lower hand', allow_speak: 'Allow to speak',
    set_large_meeting_policy: 'Large-meeting policy' })[type] || type;
}
