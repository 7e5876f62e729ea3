// Media: two peer connections per participant (docs/internal-api.md). The browser always offers; the SFU
// (ICE-lite) answers. `publish` carries our microphone, camera and screen on three fixed sendonly
// transceivers (switching devices is a replaceTrack, no renegotiation). `subscribe` is offered with
// recvonly slots and the answer's `slot_assignments` says which mid carries whose track.

import { mapSlots, diffSlots, slotsNeeded, deltaFits, wholeMapFits, applySlotDelta } from './slots.js';
import { qualityLevel, intervalLossPct } from './quality.js';

/** @typedef {'microphone'|'camera'|'screen'} Source */

/**
 * @typedef {Object} MediaOptions
 * @property {(msg:Object) => boolean} send             send a signaling message
 * @property {RTCIceServer[]} [iceServers]
 * @property {(ref:import('./slots.js').RemoteTrackRef, track:MediaStreamTrack) => void} onRemoteTrack
 * @property {(ref:import('./slots.js').RemoteTrackRef, track:MediaStreamTrack|null) => void} onRemoteTrackRemoved
 * @property {(state:'connected'|'disconnected'|'failed'|'restarting') => void} [onTransportState]
 * @property {(reason:string) => void} onNeedNewGeneration  ICE restart did not help: ask for a new transport
 * @property {number} [answerTimeoutMs=8000]
 * @property {number} [restartGraceMs=5000]   after an ICE restart, this long to reach connected
 * @property {boolean|'auto'} [simulcast='auto']  send the camera as three simulcast encodings (rids q/h/f at
 *           1/4, 1/2 and full resolution); 'auto' = when the camera is at least SIMULCAST_MIN_WIDTH wide
 *           (Chromium sends fewer layers below that anyway)
 * @property {boolean} [svc=false]  send the camera as one VP9 stream with 3 spatial × 3 temporal layers
 *           (L3T3_KEY) when the browser can; the SFU forwards each subscriber the layers its tile needs
 *           (docs/sfu.md "VP9 SVC"). Otherwise (or when false) simulcast as above.
 * @property {number|null} [audioTopN]  the meeting's `audio_top_n` (from the transport answer): offer exactly this
 *           many audio slots; the SFU moves them between speakers and says so in `slot_assignments` (docs/sfu.md
 *           "Top-N audio"). Absent: one audio slot per remote participant, as before.
 * @property {{pcConfig:() => Object, attach:(pc:RTCPeerConnection) => void}} [e2ee]  end-to-end encrypted meeting:
 *           every sender and receiver goes behind the frame-encryption worker before it is negotiated (e2ee/)
 * @property {import('./join-timeline.js').JoinTimeline} [timeline]  marks offer/answer and follows the subscribe connection
 */

/** Simulcast encodings of the camera, lowest first: the SFU numbers layers in this (SDP rid) order. */
export const SIMULCAST_ENCODINGS = [
  { rid: 'q', scaleResolutionDownBy: 4, maxBitrate: 200000 },
  { rid: 'h', scaleResolutionDownBy: 2, maxBitrate: 700000 },
  { rid: 'f', scaleResolutionDownBy: 1, maxBitrate: 2000000 },
];
export const SIMULCAST_MIN_WIDTH = 960;

/**
 * The browser's video codecs with VP9 profile 0 first, if it can encode VP9 (and, where it lists scalability
 * modes, L3T3_KEY among them; Chromium without that list refuses an unsupported mode in addTransceiver); else null.
 */
export function vp9SvcCodecs() {
  const send = globalThis.RTCRtpSender?.getCapabilities?.('video')?.codecs || [];
  const vp9Send = send.filter((c) => c.mimeType === 'video/VP9' && /profile-id=0/.test(c.sdpFmtpLine || ''));
  if (!vp9Send.some((/** @type {RTCRtpCodec & {scalabilityModes?: string[]}} */ c) => !c.scalabilityModes || c.scalabilityModes.includes('L3T3_KEY'))) return null;
  const all = globalThis.RTCRtpReceiver?.getCapabilities?.('video')?.codecs || [];
  const vp9 = all.filter((c) => c.mimeType === 'video/VP9' && /profile-id=0/.test(c.sdpFmtpLine || ''));
  return vp9.length ? [...vp9, ...all.filter((c) => !vp9.includes(c))] : null;
}

/** Whether to send `track` with simulcast under the `simulcast` option. */
export function wantsSimulcast(option, track) {
  if (option === true) return !!track;
  if (option === false || !track) return false;
  const w = track.getSettings?.().width ?? 0;
  return w >= SIMULCAST_MIN_WIDTH;
}

/**
 * Which encodings of a sender to turn on or off for a dynacast `publisher_layers` message: by rid when the
 * message names them, else by position. Returns [{index, active}] for the encodings that change.
 * @param {{rid?:string, active?:boolean}[]} encodings @param {{active_layers:boolean[], rids?:(string|null)[]}} msg
 */
export function layerChanges(encodings, msg) {
  const out = [];
  const active = msg.active_layers || [];
  encodings.forEach((e, i) => {
    let k = i;
    if (e.rid && Array.isArray(msg.rids) && msg.rids.includes(e.rid)) k = msg.rids.indexOf(e.rid);
    if (k >= active.length) return;
    const want = active[k] !== false;
    if ((e.active !== false) !== want) out.push({ index: i, active: want });
  });
  return out;
}

export class MediaSession {
  /** @param {MediaOptions} o */
  constructor(o) {
    this.o = o;
    /** @type {RTCPeerConnection|null} */ this.pub = null;
    /** @type {RTCPeerConnection|null} */ this.sub = null;
    /** @type {Object<Source, RTCRtpTransceiver>} */ this.senders = {};
    /** @type {Map<string, import('./slots.js').RemoteTrackRef>} */ this.slots = new Map();
    this.pendingAnswers = new Map();
    this.closed = false;
    this.restarts = 0;
    /** @type {any} timer handle */ this.restartTimer = null;
    /** @type {any} timer handle */ this.disconnectTimer = null;
    this.prevLoss = null;
    this.lastAssignments = null;
    /** version of the slot map we hold (answers and `subscribed` say it; each applied `slot_delta` advances it) */
    /** @type {number|null} */ this.slotVersion = null;
    this.slotMapAskedAt = 0;
    /** source -> encodings the SFU asked us to send (dynacast): {rids, active:[bool], maxSpatialLayer, changes, at} */
    this.layerState = {};
    /** source -> sequence of the last publisher_layers applied */
    this.layerSeq = {};
    /** @type {Promise<unknown>} */ this.layerChain = Promise.resolve();
  }

  /**
   * Create both peer connections and negotiate them.
   * @param {{microphone?:MediaStreamTrack|null, camera?:MediaStreamTrack|null}} local
   * @param {number} remoteCount participants we expect to receive
   */
  async start(local, remoteCount) {
    /** @type {RTCConfiguration} */
    const cfg = { iceServers: this.o.iceServers || [], bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require', ...(this.o.e2ee?.pcConfig() || {}) };
    this.pub = new RTCPeerConnection(cfg);
    this.sub = new RTCPeerConnection(cfg);
    this.#watch(this.pub, 'publish');
    this.#watch(this.sub, 'subscribe');
    this.o.timeline?.watch(this.sub);
    const stream = new MediaStream();
    this.senders.microphone = this.pub.addTransceiver(local.microphone || 'audio', { direction: 'sendonly', streams: [stream] });
    /** @type {RTCRtpTransceiverInit} */
    const cameraInit = { direction: 'sendonly', streams: [stream] };
    let svcCodecs = this.o.svc ? vp9SvcCodecs() : null;
    if (svcCodecs) {
      try {
        this.senders.camera = this.pub.addTransceiver(local.camera || 'video', { ...cameraInit, sendEncodings: [/** @type {RTCRtpEncodingParameters} */ (/** @type {unknown} */ ({ scalabilityMode: 'L3T3_KEY' }))] });
      } catch (e) { console.warn(`parley: no VP9 SVC, simulcast instead: ${e instanceof Error ? e.message : e}`); svcCodecs = null; }
      if (svcCodecs) this.senders.camera.setCodecPreferences(svcCodecs); // VP9 listed first: the SFU publishes VP9
    }
    if (!svcCodecs) {
      if (wantsSimulcast(this.o.simulcast ?? 'auto', local.camera)) cameraInit.sendEncodings = SIMULCAST_ENCODINGS.map((e) => ({ ...e }));
      this.senders.camera = this.pub.addTransceiver(local.camera || 'video', cameraInit);
    }
    // The screen section stays inactive until a share starts (an idle sendonly section would be announced
    // to everyone as a published track). Order matters: mids 0/1/2 = microphone/camera/screen (slots.js).
    this.senders.screen = this.pub.addTransceiver('video', { direction: 'inactive', streams: [new MediaStream()] });
    const n = slotsNeeded(remoteCount, undefined, undefined, this.o.audioTopN);
    for (let i = 0; i < n.audio; i++) this.sub.addTransceiver('audio', { direction: 'recvonly' });
    for (let i = 0; i < n.video; i++) this.sub.addTransceiver('video', { direction: 'recvonly' });
    // Subscribe first: the controller relays one socket's offers in order, and the first remote frame (time to
    // join, join-timeline.js) waits on the subscribe answer, not on ours being published.
    await Promise.all([this.#negotiate('subscribe'), this.#negotiate('publish')]);
  }

  /** Which mid carries which source on the publish side (sent with the offer). */
  publishSources() {
    return Object.entries(this.senders).filter(([, t]) => t.mid != null).map(([source, t]) => ({ mid: t.mid, source, kind: source === 'microphone' ? 'audio' : 'video' }));
  }

  /** @param {'publish'|'subscribe'} kind @param {{iceRestart?:boolean}} [opts] */
  async #negotiate(kind, opts = {}) {
    const pc = /** @type {RTCPeerConnection} */ (kind === 'publish' ? this.pub : this.sub);
    this.o.e2ee?.attach(pc); // e2ee: no transceiver is negotiated without its frame transform
    const offer = await pc.createOffer(opts);
    await pc.setLocalDescription(offer);
    const answerP = new Promise((resolve, reject) => {
      // An ICE restart answers fast when the SFU is alive; a silent one means it is gone: give up sooner.
      // (A dead SFU is refused at once by the controller, `unreachable`; this timeout only catches silence.)
      const wait = opts.iceRestart ? Math.min(5000, this.o.answerTimeoutMs ?? 8000) : (this.o.answerTimeoutMs ?? 8000);
      const timer = setTimeout(() => { this.pendingAnswers.delete(kind); reject(new Error(`no ${kind} answer`)); }, wait);
      this.pendingAnswers.set(kind, { resolve, reject, timer });
    });
    const msg = { type: 'offer', transport: kind, sdp: /** @type {RTCSessionDescription} */ (pc.localDescription).sdp };
    if (kind === 'publish') msg.sources = this.publishSources();
    else msg.slot_deltas = true; // top-N moves reach us as the moved slots only (slot_delta), not the whole map
    if (!this.o.send(msg)) {
      const p = this.pendingAnswers.get(kind);
      clearTimeout(p.timer);
      this.pendingAnswers.delete(kind);
      throw new Error('signaling not open');
    }
    this.o.timeline?.mark(kind === 'subscribe' ? 'offer_sent' : 'publish_offer_sent');
    return answerP;
  }

  /** Route a signaling message that concerns media. @returns {boolean} handled */
  handleMessage(msg) {
    if (msg.type === 'answer') { this.#onAnswer(msg); return true; }
    if (msg.type === 'error' && msg.code === 'lease_in_doubt') { this.#retryOffer(msg); return true; }
    if (msg.type === 'subscribed' || msg.type === 'slot_assignments' || (msg.type === 'event' && msg.event?.type === 'slot_assignments')) {
      this.applyWholeSlotMap(msg.slot_assignments ?? msg.event?.slot_assignments ?? msg.assignments, msg.slot_version);
      return true;
    }
    if (msg.type === 'event' && msg.event?.type === 'slot_delta') { this.applySlotDelta(msg.event); return true; }
    if (msg.type === 'trickle' && msg.candidate) {
      const pc = msg.transport === 'publish' ? this.pub : this.sub;
      pc?.addIceCandidate(msg.candidate).catch(() => { /* late candidate for an old description */ });
      return true;
    }
    return false;
  }

  /**
   * The controller could not vouch for its lease when our offer came (an etcd hiccup): the transport is fine,
   * so the same offer goes again after the pause it asks for, while its answer is still awaited (the answer
   * timeout keeps running: a lease that stays in doubt ends in a new generation as before).
   */
  #retryOffer(msg) {
    const kind = msg.transport === 'publish' ? 'publish' : 'subscribe';
    const wait = Math.min(5000, Math.max(100, Number(msg.retry_after_ms) || 500));
    setTimeout(() => {
      const pc = kind === 'publish' ? this.pub : this.sub;
      if (this.closed || !pc?.localDescription || !this.pendingAnswers.has(kind)) return;
      const again = { type: 'offer', transport: kind, sdp: pc.localDescription.sdp };
      if (kind === 'publish') again.sources = this.publishSources();
      else again.slot_deltas = true;
      this.o.send(again);
    }, wait);
  }

  async #onAnswer(msg) {
    const kind = msg.transport === 'publish' ? 'publish' : 'subscribe';
    const pc = kind === 'publish' ? this.pub : this.sub;
    const pending = this.pendingAnswers.get(kind);
    if (!pc || this.closed) return;
    try {
      // marked when the answer is handed over: ICE (ICE-lite SFU on a short path) may connect before the
      // setRemoteDescription promise's continuation runs, which put ice_connected before answer_received
      this.o.timeline?.mark(kind === 'subscribe' ? 'answer_received' : 'publish_answer_received');
      await pc.setRemoteDescription({ type: 'answer', sdp: msg.sdp });
      if (kind === 'subscribe' && msg.slot_assignments) this.applyWholeSlotMap(msg.slot_assignments, msg.slot_version);
      if (pending) { clearTimeout(pending.timer); this.pendingAnswers.delete(kind); pending.resolve(); }
    } catch (e) {
      if (pending) { clearTimeout(pending.timer); this.pendingAnswers.delete(kind); pending.reject(e); }
    }
  }

  /**
   * A whole slot map (answer, `subscribed`, an old server's notice) of version `version`: applied unless it is older
   * than the map we hold (a delta overtook it).
   */
  applyWholeSlotMap(assignments, version) {
    if (!wholeMapFits(this.slotVersion, version)) return;
    if (version !== null && version !== undefined) this.slotVersion = Number(version);
    this.applySlotAssignments(assignments);
  }

  /**
   * A `slot_delta {base, version, changes}`: applied when made from the map we hold; a gap (a lost delta: volatile
   * messages may be dropped) asks for the whole map — `subscribe` with no tracks changes nothing at the SFU and is
   * answered `subscribed {slot_assignments, slot_version}` — at most once a second.
   */
  applySlotDelta(ev) {
    const fit = deltaFits(this.slotVersion, ev);
    if (fit === 'stale') return;
    if (fit === 'gap') {
      if (this.closed || Date.now() - this.slotMapAskedAt < 1000) return;
      this.slotMapAskedAt = Date.now();
      this.o.send({ type: 'subscribe', tracks: [] });
      return;
    }
    this.slotVersion = Number(ev.version);
    this.applySlotAssignments(applySlotDelta(this.lastAssignments, ev.changes));
  }

  /** Apply the SFU's mid -> remote track map and tell the UI what changed. */
  applySlotAssignments(assignments) {
    if (!this.sub) return;
    this.lastAssignments = assignments;
    /** @type {Object<string, 'audio'|'video'>} */
    const kindByMid = {};
    for (const t of this.sub.getTransceivers()) if (t.mid != null) kindByMid[t.mid] = /** @type {'audio'|'video'} */ (t.receiver.track.kind);
    const next = mapSlots(assignments, kindByMid);
    const { added, removed } = diffSlots(this.slots, next);
    this.slots = next;
    for (const r of removed) this.o.onRemoteTrackRemoved(r, this.#trackOf(r.mid));
    for (const a of added) {
      const t = this.sub.getTransceivers().find((x) => x.mid === a.mid);
      if (t) this.o.onRemoteTrack(a, t.receiver.track);
    }
  }

  /** The receiving track on a subscribe mid (null when there is none). */
  #trackOf(mid) {
    try { return this.sub?.getTransceivers().find((x) => x.mid === mid)?.receiver.track ?? null; } catch { return null; }
  }

  /** Any answer we are waiting for fails (the server refused an offer): negotiation errors surface. */
  failPending(code) {
    for (const [kind, p] of this.pendingAnswers) { clearTimeout(p.timer); p.reject(new Error(code)); this.pendingAnswers.delete(kind); }
  }

  /** Re-offer the subscribe side (same ICE) so the SFU's answer carries fresh slot assignments. */
  async refreshSubscriptions(remoteCount) {
    if (!this.sub || this.closed) return true;
    if (this.pendingAnswers.has('subscribe')) return false; // caller tries again shortly
    const need = slotsNeeded(remoteCount, undefined, undefined, this.o.audioTopN);
    const have = { audio: 0, video: 0 };
    for (const t of this.sub.getTransceivers()) have[t.receiver.track.kind]++;
    for (let i = have.audio; i < need.audio; i++) this.sub.addTransceiver('audio', { direction: 'recvonly' });
    for (let i = have.video; i < need.video; i++) this.sub.addTransceiver('video', { direction: 'recvonly' });
    await this.#negotiate('subscribe');
    return true;
  }

  /** Offer more recvonly slots when the roster outgrew them (same transport, same ICE). */
  async ensureSlots(remoteCount) {
    if (!this.sub || this.closed) return;
    const need = slotsNeeded(remoteCount, undefined, undefined, this.o.audioTopN);
    const have = { audio: 0, video: 0 };
    for (const t of this.sub.getTransceivers()) have[t.receiver.track.kind]++;
    if (have.audio >= need.audio && have.video >= need.video) return;
    for (let i = have.audio; i < need.audio; i++) this.sub.addTransceiver('audio', { direction: 'recvonly' });
    for (let i = have.video; i < need.video; i++) this.sub.addTransceiver('video', { direction: 'recvonly' });
    await this.#negotiate('subscribe');
  }

  /**
   * Put a local track (or null = stop sending) on a source. Never renegotiates.
   * @param {Source} source @param {MediaStreamTrack|null} track
   */
  async setSource(source, track) {
    const t = this.senders[source];
    if (!t) return;
    await t.sender.replaceTrack(track);
    if (source === 'screen') {
      // Starting or stopping a share publishes or withdraws the screen track: renegotiate (same ICE).
      const want = track ? 'sendonly' : 'inactive';
      if (t.direction !== want && !this.closed) {
        t.direction = want;
        await this.#negotiate('publish');
      }
    }
  }

  /**
   * Dynacast: the SFU says which simulcast encodings of one of our tracks anybody receives
   * ({type:'publisher_layers', mid, active_layers, rids, max_spatial_layer}). Encodings nobody needs are set
   * `active: false` (the browser stops encoding and sending them), the others back to true. Calls are chained
   * so two messages never race on one sender's parameters.
   * @returns {Promise<{source:string, changed:number}|null>}
   */
  applyPublisherLayers(msg) {
    const entry = Object.entries(this.senders).find(([, t]) => t.mid != null && (String(t.mid) === String(msg.mid)
      || (!msg.mid && String(msg.track_id || '').endsWith(':' + t.mid))));
    if (!entry) return Promise.resolve(null);
    const [source, transceiver] = entry;
    // events may overtake each other on the way (separate requests): only a newer decision counts
    const seq = Number(msg.sequence);
    if (Number.isFinite(seq)) {
      if (seq <= (this.layerSeq[source] ?? 0)) return Promise.resolve(null);
      this.layerSeq[source] = seq;
    }
    const run = async () => {
      if (this.closed) return null;
      const sender = transceiver.sender;
      const params = sender.getParameters();
      if (!params.encodings || params.encodings.length < 2) return { source, changed: 0 };
      const changes = layerChanges(params.encodings, msg);
      for (const c of changes) params.encodings[c.index].active = c.active;
      if (changes.length) await sender.setParameters(params);
      const prev = this.layerState[source];
      this.layerState[source] = {
        rids: params.encodings.map((e) => e.rid ?? null), active: params.encodings.map((e) => e.active !== false),
        maxSpatialLayer: msg.max_spatial_layer ?? null, changes: (prev?.changes ?? 0) + changes.length, at: Date.now(),
      };
      return { source, changed: changes.length };
    };
    const p = this.layerChain.then(run);
    this.layerChain = p.catch(() => null);
    return p;
  }

  /**
   * Per simulcast encoding of the publish side (for dynacast and the quality view): mid, rid, whether the
   * browser sends it (`active`), bytes and frames so far, frame size.
   * @returns {Promise<{mid:string, rid:string|null, active:boolean|null, bytesSent:number, framesEncoded:number, frameWidth:number|null}[]>}
   */
  async publishLayerStats() {
    const out = [];
    if (!this.pub) return out;
    const report = await this.pub.getStats();
    report.forEach((s) => {
      if (s.type === 'outbound-rtp' && s.kind === 'video') {
        out.push({ mid: String(s.mid), rid: s.rid ?? null, active: s.active ?? null, bytesSent: s.bytesSent ?? 0,
          framesEncoded: s.framesEncoded ?? 0, frameWidth: s.frameWidth ?? null });
      }
    });
    return out;
  }

  /** ICE restart on both connections (network changed: Wi-Fi -> cellular). */
  async restartIce(reason = 'network_change') {
    if (this.closed || !this.pub) return;
    // One restart at a time: a second offer while the first waits for its answer would orphan it.
    if (this.restarting) return;
    this.restarting = true;
    try { await this.#restartIce(reason); } finally { this.restarting = false; }
  }

  async #restartIce(reason) {
    this.restarts++;
    this.o.onTransportState?.('restarting');
    try {
      await Promise.all([this.#negotiate('publish', { iceRestart: true }), this.#negotiate('subscribe', { iceRestart: true })]);
    } catch (e) {
      this.o.onNeedNewGeneration(reason + ':restart_failed');
      return;
    }
    // A restart of a connection that never left `connected` fires no state change: say it is up again.
    if (this.#bothConnected()) this.o.onTransportState?.('connected');
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      if (this.closed) return;
      if (!this.#bothConnected()) this.o.onNeedNewGeneration(reason + ':not_connected_after_restart');
      else this.o.onTransportState?.('connected');
    }, this.o.restartGraceMs ?? 5000);
  }

  #bothConnected() {
    const ok = (pc) => pc && (pc.connectionState === 'connected' || pc.iceConnectionState === 'connected' || pc.iceConnectionState === 'completed');
    return ok(this.pub) && ok(this.sub);
  }

  /** @param {RTCPeerConnection} pc @param {'publish'|'subscribe'} kind */
  #watch(pc, kind) {
    pc.onicecandidate = (e) => {
      if (e.candidate) this.o.send({ type: 'trickle', transport: kind, candidate: e.candidate.toJSON() });
    };
    pc.onconnectionstatechange = () => {
      if (this.closed) return;
      const st = pc.connectionState;
      if (st === 'connected') {
        clearTimeout(this.disconnectTimer);
        if (this.#bothConnected()) { clearTimeout(this.restartTimer); this.o.onTransportState?.('connected'); }
      } else if (st === 'disconnected') {
        this.o.onTransportState?.('disconnected');
        clearTimeout(this.disconnectTimer);
        // Short blips heal by themselves; a longer one gets an ICE restart.
        this.disconnectTimer = setTimeout(() => { if (pc.connectionState === 'disconnected') this.restartIce('disconnected'); }, 1500);
      } else if (st === 'failed') {
        this.o.onTransportState?.('failed');
        // A failed transport after a restart (or a dead SFU) needs a new generation.
        if (this.restarts > 0) this.o.onNeedNewGeneration('ice_failed');
        else this.restartIce('ice_failed');
      }
    };
  }

  /**
   * Inbound and transport stats: per-mid counters for remote tracks plus quality.
   * @returns {Promise<{tracks:Object[], rttMs:number|null, lossPct:number|null, transportBytes:number, level:string}>}
   */
  async stats() {
    const tracks = [];
    let rttMs = null;
    let lost = 0;
    let received = 0;
    let transportBytes = 0;
    if (this.sub) {
      const report = await this.sub.getStats();
      report.forEach((s) => {
        if (s.type === 'inbound-rtp') {
          const ref = this.slots.get(String(s.mid));
          tracks.push({
            mid: String(s.mid), kind: s.kind, participantId: ref?.participantId ?? null, source: ref?.source ?? null,
            framesDecoded: s.framesDecoded ?? 0, totalSamplesReceived: s.totalSamplesReceived ?? 0,
            packetsReceived: s.packetsReceived ?? 0, bytesReceived: s.bytesReceived ?? 0,
            audioLevel: s.audioLevel ?? null, frameWidth: s.frameWidth ?? null, frameHeight: s.frameHeight ?? null,
          });
          lost += Math.max(0, s.packetsLost ?? 0);
          received += s.packetsReceived ?? 0;
        } else if (s.type === 'candidate-pair' && s.nominated && s.currentRoundTripTime != null) {
          rttMs = s.currentRoundTripTime * 1000;
        } else if (s.type === 'transport') {
          transportBytes += s.bytesReceived ?? 0;
        }
      });
    }
    const cur = { lost, received };
    const lossPct = intervalLossPct(this.prevLoss, cur);
    this.prevLoss = cur;
    const connected = this.#bothConnected();
    return { tracks, rttMs, lossPct, transportBytes, level: qualityLevel({ connected, rttMs, lossPct }) };
  }

  /** Outbound stats of the publish side (are we really sending?). */
  async publishStats() {
    const out = {};
    if (!this.pub) return out;
    const report = await this.pub.getStats();
    report.forEach((s) => {
      if (s.type === 'outbound-rtp') out[String(s.mid)] = { kind: s.kind, packetsSent: s.packetsSent ?? 0, bytesSent: s.bytesSent ?? 0 };
    });
    return out;
  }

  close() {
    this.closed = true;
    clearTimeout(this.restartTimer);
    clearTimeout(this.disconnectTimer);
    for (const p of this.pendingAnswers.values()) { clearTimeout(p.timer); p.reject(new Error('closed')); }
    this.pendingAnswers.clear();
    for (const r of this.slots.values()) this.o.onRemoteTrackRemoved(r, this.#trackOf(r.mid));
    this.slots = new Map();
    try { this.pub?.close(); } catch { /* ignore */ }
    try { this.sub?.close(); } catch { /* ignore */ }
  }
}
