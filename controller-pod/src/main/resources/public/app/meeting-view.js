// The in-meeting screen, rendered from client state. Video tiles are keyed and kept across renders
// (re-creating a <video> would flash); lists and buttons re-render only when their data changed and
// keep keyboard focus.

import { h, replace, initials, keyedList } from './dom.js';
import { e2eeBarKey, renderE2eeBar, tileE2ee } from './e2ee-view.js';
import { Paging } from './paging.js';
import { pageOf } from './layout.js';
import { cameraAspect, fitStage, gridPageSize, stripPageSize, renderPager, STRIP_HEIGHT } from './stage-view.js';

const PAGE_CHOICES = ['auto', 4, 6, 9, 16, 25];
/** People panel rows per page (a thousand rows would be a thousand DOM rows). */
const ROSTER_PAGE = 50;
const ROLE_LABEL = { host: 'Host', cohost: 'Co-host', attendee: '' };
const QUALITY_LABEL = { good: 'Good', fair: 'Fair', poor: 'Poor', lost: 'Lost', unknown: 'Checking' };
const REC_LABEL = { idle: '', requested: 'Recording requested', starting: 'Recording starting', recording: 'Recording', finalizing: 'Saving recording', stopping: 'Recording stopping', ready: 'Recording saved', partial: 'Recording saved (partial)', failed: 'Recording failed', stopped: '' };

/**
 * @typedef {Object} ViewDeps
 * @property {(pid:string, source:string) => (MediaStream|null)} remoteStream
 * @property {(source:'camera'|'screen') => (MediaStream|null)} localStream
 * @property {Object<string, Function>} actions  toggleMic, toggleCamera, toggleScreen, leave, endMeeting,
 *   muteAll, lock, record, admit, deny, mute, requestUnmute, remove, setRole, transferHost, answerUnmute, viewport
 */

export class MeetingView {
  /** @param {HTMLElement} root @param {ViewDeps} deps */
  constructor(root, deps) {
    this.root = root;
    this.deps = deps;
    this.ui = { layout: 'grid', pinned: null, panel: window.matchMedia('(min-width: 900px)').matches, pageSize: 'auto', rosterPage: 0, rosterCursors: [null] };
    this.paging = new Paging();
    this.keys = {};
    this.tiles = new Map();
    this.audios = new Map();
    this.state = null;
    this.head = h('div', { class: 'meeting-head' });
    this.banner = h('div', { class: 'banner', role: 'status', 'aria-live': 'polite', 'data-testid': 'connection-banner' });
    this.e2eeBar = h('div', { class: 'e2ee-bar', role: 'status', hidden: true, 'data-testid': 'e2ee-bar' });
    this.stage = h('div', { class: 'stage', 'aria-label': 'Video tiles', role: 'region' });
    this.strip = h('div', { class: 'strip', 'data-testid': 'filmstrip' });
    this.pager = h('div', { class: 'pager', hidden: true, 'data-testid': 'pager' });
    /** Toasts sit here, in the page flow above the controls: the stage shrinks for them, no tile is covered. */
    this.toastHost = h('div', { class: 'toast-host' });
    this.side = h('aside', { class: 'side', 'aria-label': 'Participants', id: 'participants-panel' });
    this.controls = h('nav', { class: 'controls', 'aria-label': 'Meeting controls' });
    this.dialog = h('div', { class: 'dialog-host' });
    this.audioBox = h('div', { hidden: true });
    this.el = h('section', { class: 'meeting', 'data-testid': 'meeting' },
      this.head, this.banner, this.e2eeBar, h('div', { class: 'body' }, this.stageWrap = h('div', { class: 'stage-wrap' }, this.stage, this.strip, this.pager), this.side), this.toastHost, this.controls, this.dialog, this.audioBox);
    root.replaceChildren(this.el);
    // One open action menu at a time; choosing an action closes it (it would cover the rows below).
    this.side.addEventListener('toggle', (e) => {
      if (e.target.tagName === 'DETAILS' && e.target.open) for (const d of this.side.querySelectorAll('details[open]')) if (d !== e.target) d.open = false;
    }, true);
    this.side.addEventListener('click', (e) => {
      const b = e.target.closest('.menu button');
      if (b) b.closest('details').open = false;
    });
    this.resize = new ResizeObserver(() => { if (this.state) this.#renderTiles(this.state); });
    this.resize.observe(this.stage);
  }

  /** @param {Object} state client state */
  update(state) {
    this.state = state;
    this.#part('head', this.#headKey(state), () => this.#renderHead(state));
    this.#part('quality', state.quality.level, () => this.#renderQuality(state));
    this.#part('banner', state.connection + '|' + state.connectionReason, () => this.#renderBanner(state));
    this.#part('e2ee', e2eeBarKey(state), () => renderE2eeBar(this.e2eeBar, state));
    this.#renderTiles(state);
    this.#renderAudio(state);
    this.#part('side', this.#sideKey(state), () => this.#renderSide(state));
    this.#part('speakers', state.activeSpeakers.join(), () => this.#markSpeakers(state));
    this.#part('controls', this.#controlsKey(state), () => this.#renderControls(state));
    this.#part('dialog', state.unmuteRequest ? 'ask' : '', () => this.#renderDialog(state));
  }

  #part(name, key, render) {
    if (this.keys[name] === key) return;
    this.keys[name] = key;
    render();
  }

  #rerender() { this.keys = {}; if (this.state) this.update(this.state); }

  // ---------------------------------------------------------------- head and banner

  #headKey(s) {
    // Connection quality changes often: it is updated in place (#renderQuality), not by rebuilding the buttons.
    return JSON.stringify([s.meeting?.title, s.meeting?.locked, s.recording.state, this.ui.layout, this.ui.panel, Object.keys(s.participants).length, s.roster?.count]);
  }

  #renderHead(s) {
    const rec = REC_LABEL[s.recording.state] || '';
    this.qualityEl = this.qualityEl || h('span', { class: 'quality', role: 'img', 'data-testid': 'quality' }, h('i'), h('i'), h('i'), h('i'));
    replace(this.head, [
      h('h1', { class: 'title' }, s.meeting?.title || 'Meeting'),
      s.meeting?.locked ? h('span', { class: 'badge', 'data-testid': 'locked-badge' }, 'Locked') : null,
      rec ? h('span', { class: 'badge rec', 'data-testid': 'recording-badge', 'data-state': s.recording.state }, h('span', { class: 'dot', 'aria-hidden': 'true' }), rec) : null,
      h('span', { class: 'spacer' }),
      this.qualityEl,
      h('button', { class: 'ghost', 'data-focus': 'layout', 'data-testid': 'layout-toggle', 'aria-label': this.ui.layout === 'grid' ? 'Switch to speaker view' : 'Switch to grid view',
        onclick: () => { this.ui.layout = this.ui.layout === 'grid' ? 'speaker' : 'grid'; this.#rerender(); } }, this.ui.layout === 'grid' ? 'Speaker view' : 'Grid view'),
      this.ui.layout === 'grid' ? h('label', { class: 'page-size' }, 'Videos per page ',
        h('select', { 'data-testid': 'page-size', 'data-focus': 'page-size', 'aria-label': 'Videos per page',
          onchange: (e) => { const v = e.target.value; this.ui.pageSize = v === 'auto' ? 'auto' : Number(v); this.#rerender(); } },
        PAGE_CHOICES.map((c) => h('option', { value: String(c), selected: String(c) === String(this.ui.pageSize) }, c === 'auto' ? 'Fit' : String(c))))) : null,
      h('button', { class: 'ghost', 'data-focus': 'panel', 'data-testid': 'participants-toggle', 'aria-expanded': String(this.ui.panel), 'aria-controls': 'participants-panel',
        onclick: () => { this.ui.panel = !this.ui.panel; this.#rerender(); } }, `People (${peopleCount(s)})`),
    ]);
    this.el.classList.toggle('panel-open', this.ui.panel);
    this.#renderQuality(s);
  }

  #renderQuality(s) {
    const q = s.quality.level || 'unknown';
    const el = this.qualityEl;
    if (!el) return;
    el.className = `quality q-${q}`;
    el.dataset.level = q;
    el.setAttribute('aria-label', `Connection quality: ${QUALITY_LABEL[q]}`);
    // the SFU's round-trip time toward us (its quality report), else the browser's own figure
    const rtt = s.quality.server?.rttMs ?? s.quality.rttMs;
    if (rtt != null) el.dataset.rttMs = String(Math.round(rtt)); else delete el.dataset.rttMs;
    el.title = `Connection quality: ${QUALITY_LABEL[q]}${rtt != null ? ` (round trip ${Math.round(rtt)} ms)` : ''}`;
  }

  #renderBanner(s) {
    let content = null;
    if (s.connection === 'reconnecting') content = [h('span', { class: 'spinner', 'aria-hidden': 'true' }), 'Reconnecting… Your call will continue when the connection is back.'];
    else if (s.connection === 'connecting') content = 'Connecting…';
    else if (s.connection === 'failed') content = [`Connection lost (${s.connectionReason || 'network'}). `, h('button', { onclick: () => location.reload() }, 'Rejoin')];
    this.banner.className = 'banner' + (content ? ' show ' + s.connection : '');
    replace(this.banner, content ? h('span', {}, content) : []);
  }

  // ---------------------------------------------------------------- tiles

  /**
   * Tiles to show: `main` on the stage, `rest` in the film strip, and the page of remote videos shown (only
   * those are subscribed: #reportViewport names them, the SDK unsubscribes the others).
   */
  #layout(s) {
    const selfId = s.self.participant_id;
    const self = { key: 'self:camera', pid: selfId, source: 'camera', self: true, name: (s.self.display_name || 'You') + ' (you)', person: s.self.display_name, role: s.self.role, micOn: s.self.mic.on };
    const screens = [];
    if (s.self.screen.on) screens.push({ key: 'self:screen', pid: selfId, source: 'screen', self: true, name: 'Your screen', person: s.self.display_name, role: s.self.role });
    const byPid = new Map();
    for (const p of Object.values(s.participants)) {
      byPid.set(p.participant_id, { key: p.participant_id + ':camera', pid: p.participant_id, source: 'camera', name: p.display_name, role: p.role, micOn: p.publish.audio && !p.muted, connection: p.connection, quality: p.quality });
      if (p.tracks.screen && p.tracks.screen.attached) screens.push({ key: p.participant_id + ':screen', pid: p.participant_id, source: 'screen', name: `${p.display_name}'s screen`, person: p.display_name, role: p.role });
    }
    this.paging.sync([...byPid.keys()], s.activeSpeakers);
    const aspect = cameraAspect(this.tiles.values());
    const pinned = this.ui.pinned && (this.ui.pinned === 'self:camera' ? self : byPid.get(this.ui.pinned.split(':')[0]));
    if (screens.length || this.ui.layout === 'speaker' || pinned) {
      // one big tile (a screen share, the pinned person, the active speaker) and a paged film strip
      const speaker = byPid.get(s.activeSpeakers.find((x) => byPid.has(x)));
      const main = screens[0] || pinned || speaker || byPid.get(this.paging.order[0]) || self;
      const pg = this.paging.view(stripPageSize(this.stageWrap, aspect), []);
      const strip = pg.ids.filter((pid) => pid !== main.pid || main.source === 'screen').map((pid) => byPid.get(pid));
      return { mode: screens.length ? 'screen' : 'speaker', main: [main], rest: [...screens.slice(1), ...(main === self ? [] : [self]), ...strip], pg, aspect };
    }
    const pg = this.paging.view(gridPageSize(this.stage, this.ui.pageSize, aspect), s.activeSpeakers);
    return { mode: 'grid', main: [self, ...pg.ids.map((pid) => byPid.get(pid))], rest: [], pg, aspect };
  }

  #renderTiles(s) {
    const { mode, main, rest, pg, aspect } = this.#layout(s);
    this.stage.dataset.mode = mode;
    this.stage.dataset.count = String(main.length);
    this.el.dataset.layout = mode;
    const seen = new Set();
    const place = (container, list) => {
      let i = 0;
      for (const t of list) {
        seen.add(t.key);
        const tile = this.#tile(t, s);
        if (container.children[i] !== tile.el) container.insertBefore(tile.el, container.children[i] || null);
        i++;
      }
      while (container.children.length > i) {
        const el = container.children[i];
        if ([...this.tiles.values()].some((x) => x.el === el && (seen.has(x.key)))) { i++; continue; }
        el.remove();
      }
    };
    place(this.stage, main);
    place(this.strip, rest);
    this.strip.hidden = rest.length === 0;
    for (const [k, t] of this.tiles) if (!seen.has(k)) { t.el.remove(); t.video.srcObject = null; this.tiles.delete(k); }
    for (const t of this.strip.children) t.style.width = Math.round(STRIP_HEIGHT * aspect) + 'px';
    const pagerKey = JSON.stringify([pg.page, pg.pages, pg.hidden]);
    if (pagerKey !== this.pagerKey) { this.pagerKey = pagerKey; renderPager(this.pager, pg, (d) => { this.paging.turn(d); this.#renderTiles(this.state); }); }
    const screenMain = main.length === 1 && main[0].source === 'screen';
    const g = fitStage(this.stage, main.length, screenMain ? 16 / 9 : aspect);
    this.stage.dataset.tileWidth = String(g.tileWidth);
    this.#reportViewportSoon();
  }

  /** A video's size became known or changed: the aspect may have changed the best grid. */
  #fitSoon() {
    cancelAnimationFrame(this.fitRaf);
    this.fitRaf = requestAnimationFrame(() => { if (this.state) this.#renderTiles(this.state); });
  }

  #tile(t, s) {
    let tile = this.tiles.get(t.key);
    if (!tile) {
      const video = h('video', { autoplay: true, playsinline: true, muted: true });
      video.muted = true; // audio plays through the <audio> elements
      video.addEventListener('resize', () => this.#fitSoon());
      const avatar = h('div', { class: 'avatar', 'aria-hidden': 'true' });
      const caption = h('figcaption', {});
      const pin = h('button', { class: 'pin', 'data-focus': 'pin-' + t.key, onclick: () => { this.ui.pinned = this.ui.pinned === t.key ? null : t.key; this.#rerender(); this.#reportViewportSoon(); } });
      const el = h('figure', { class: 'tile', 'data-testid': `tile-${t.self ? 'self' : t.pid}-${t.source}`, 'data-pid': t.pid || 'self', 'data-source': t.source }, video, avatar, caption, pin);
      tile = { key: t.key, el, video, avatar, caption, pin, stream: null };
      this.tiles.set(t.key, tile);
    }
    const stream = t.self ? this.deps.localStream(t.source) : this.deps.remoteStream(t.pid, t.source);
    // A remote track is "muted" while no media arrives (camera off, stream not started): show the avatar.
    const hasVideo = !!stream && stream.getVideoTracks().some((x) => x.readyState === 'live' && (t.self || !x.muted))
      && (t.self ? (t.source === 'screen' || s.self.camera.on) : true);
    if (tile.stream !== stream) {
      tile.stream = stream;
      tile.video.srcObject = stream;
      if (stream) {
        tile.video.play().catch(() => {});
        for (const tr of stream.getVideoTracks()) {
          tr.addEventListener('mute', () => this.#tile(t, this.state));
          tr.addEventListener('unmute', () => this.#tile(t, this.state));
        }
      }
    }
    const e2ee = t.self ? tileE2ee(s, null) : tileE2ee(s, t.pid); // e2ee: no video before we can decrypt it
    tile.video.hidden = !hasVideo || !e2ee.showVideo;
    tile.avatar.hidden = hasVideo && e2ee.showVideo;
    tile.el.dataset.e2ee = e2ee.state || '';
    tile.avatar.textContent = initials(t.person || t.name);
    tile.el.classList.toggle('speaking', !!t.pid && s.activeSpeakers.includes(t.pid) && !t.self);
    tile.el.classList.toggle('screen', t.source === 'screen');
    tile.el.classList.toggle('reconnecting', t.connection === 'reconnecting');
    const pinned = this.ui.pinned === t.key;
    tile.pin.setAttribute('aria-pressed', String(pinned));
    tile.pin.setAttribute('aria-label', `${pinned ? 'Unpin' : 'Pin'} ${t.name}`);
    tile.pin.textContent = pinned ? 'Unpin' : 'Pin';
    // the SFU paused this video for our bandwidth (subscription_paused): say why it froze
    const paused = !t.self && !!t.pid && Object.values(s.pausedSubscriptions || {}).some((x) => x.participantId === t.pid && x.source === t.source);
    tile.el.classList.toggle('paused', paused);
    const capKey = JSON.stringify([t.name, t.role, t.micOn, t.connection, t.quality, paused, e2ee.label]);
    if (tile.capKey !== capKey) {
      tile.capKey = capKey;
      replace(tile.caption, [
        t.source === 'camera' ? h('span', { class: 'mic ' + (t.micOn ? 'on' : 'off'), role: 'img', 'aria-label': t.micOn ? 'Microphone on' : 'Muted' }) : null,
        h('span', { class: 'name' }, t.name),
        ROLE_LABEL[t.role] ? h('span', { class: 'role' }, ROLE_LABEL[t.role]) : null,
        t.connection === 'reconnecting' ? h('span', { class: 'role warn' }, 'Reconnecting') : null,
        e2ee.label ? h('span', { class: 'role warn', 'data-testid': 'e2ee-peer-status' }, e2ee.label) : null,
        paused ? h('span', { class: 'role warn', 'data-testid': 'video-paused', title: 'Video paused because your connection is too slow for it; it resumes by itself' }, 'Paused: low bandwidth') : null,
      ]);
    }
    return tile;
  }

  #renderAudio(s) {
    const want = new Set();
    for (const p of Object.values(s.participants)) {
      const st = this.deps.remoteStream(p.participant_id, 'microphone');
      if (!st) continue;
      want.add(p.participant_id);
      let a = this.audios.get(p.participant_id);
      if (!a) { a = h('audio', { autoplay: true, 'data-pid': p.participant_id }); this.audios.set(p.participant_id, a); this.audioBox.append(a); }
      if (a.srcObject !== st) { a.srcObject = st; a.play().catch(() => {}); }
    }
    for (const [pid, a] of this.audios) if (!want.has(pid)) { a.srcObject = null; a.remove(); this.audios.delete(pid); }
  }

  #reportViewportSoon() {
    cancelAnimationFrame(this.vpRaf);
    this.vpRaf = requestAnimationFrame(() => this.#reportViewport());
  }

  /** Tell the SDK the size and frame rate each remote video is really shown at. */
  #reportViewport() {
    const s = this.state;
    if (!s) return;
    const out = [];
    for (const t of this.tiles.values()) {
      if (t.key.startsWith('self:')) continue;
      const [pid, source] = t.key.split(':');
      // a camera whose track_published we missed still has the id every Parley client's camera has (mid 1)
      const trackId = s.participants[pid]?.tracks?.[source]?.trackId || (source === 'camera' ? `${pid}:1` : null);
      if (!trackId) continue;
      const r = t.el.getBoundingClientRect();
      const big = t.el.parentElement === this.stage;
      const entry = { track_id: trackId, max_width: Math.round(r.width * devicePixelRatio), max_height: Math.round(r.height * devicePixelRatio), max_fps: source === 'screen' ? 15 : big ? 30 : 15 };
      // a pinned tile is what this person chose to watch: the SFU gives it the budget before the active speaker
      if (this.ui.pinned === t.key) entry.pinned = true;
      out.push(entry);
    }
    const key = JSON.stringify(out);
    if (key !== this.lastViewport) { this.lastViewport = key; this.deps.actions.viewport(out); }
  }

  // ---------------------------------------------------------------- participants panel

  #sideKey(s) {
    return JSON.stringify([this.ui.panel, s.self, s.participants && Object.values(s.participants).map((p) => [p.participant_id, p.display_name, p.role, p.publish, p.connection, p.muted, p.quality]),
      Object.values(s.waiting).map((p) => [p.participant_id, p.display_name]), s.commands, s.raisedHands, s.roster?.paged && [s.roster.count, s.roster.page]]);
  }

  /**
   * The People panel. Rows are keyed (dom.js keyedList): a row is rebuilt only when its own data
   * changes, so the Admit button someone is pressing is never swapped out under the pointer.
   * Speaking highlights are toggled in place (#markSpeakers), never by a rebuild.
   */
  #renderSide(s) {
    if (!this.sideEls) {
      const waitingTitle = h('h3', {});
      const waitingList = h('ul', { class: 'plist' });
      const waitingSection = h('section', { class: 'waiting', 'aria-label': 'Waiting room' }, waitingTitle, waitingList);
      const inTitle = h('h3', {});
      const list = h('ul', { class: 'plist' });
      const pager = h('div', { class: 'pager', hidden: true, 'data-testid': 'roster-pager' });
      const handsTitle = h('h3', {});
      const handsList = h('ol', { class: 'plist', 'data-testid': 'hand-queue' });
      const handsSection = h('section', { class: 'hands', 'aria-label': 'Raised hands' }, handsTitle, handsList);
      this.sideEls = { waitingSection, waitingTitle, waitingList, handsSection, handsTitle, handsList, inTitle, list, pager,
        waitingRows: new Map(), handRows: new Map(), rows: new Map() };
      replace(this.side, [h('h2', {}, 'People'), waitingSection, handsSection, inTitle, list, pager]);
    }
    const e = this.sideEls;
    this.side.hidden = !this.ui.panel;
    const mod = s.self.role === 'host' || s.self.role === 'cohost';
    const a = this.deps.actions;
    const waiting = mod ? Object.values(s.waiting) : [];
    e.waitingSection.hidden = waiting.length === 0;
    e.waitingTitle.textContent = `Waiting room (${waiting.length})`;
    keyedList(e.waitingList, waiting, (p) => p.participant_id, (p) => p.display_name, (p) => h('li', { 'data-testid': 'waiting-' + p.participant_id },
      h('span', { class: 'pname' }, p.display_name),
      h('span', { class: 'pactions' },
        h('button', { class: 'primary small', 'data-focus': 'admit-' + p.participant_id, 'data-testid': 'admit', 'aria-label': `Admit ${p.display_name}`, onclick: () => a.admit(p.participant_id) }, 'Admit'),
        h('button', { class: 'small', 'data-focus': 'deny-' + p.participant_id, 'data-testid': 'deny', 'aria-label': `Deny ${p.display_name}`, onclick: () => a.deny(p.participant_id) }, 'Deny'))), e.waitingRows);
    this.#renderHands(s, mod);
    const latest = latestCommands(s.commands);
    let rows;
    if (s.roster?.paged) {
      // paged roster (large meeting): the server's pages (GET …/participants), the count from its summaries
      const page = s.roster.page;
      const others = (page?.ids || []).map((id) => s.participants[id]).filter(Boolean);
      const total = peopleCount(s);
      e.inTitle.textContent = `In the meeting (${total})`;
      const at = this.ui.rosterCursors.length - 1;
      const pages = Math.max(at + 1 + (page?.next ? 1 : 0), Math.ceil(total / Math.max(1, page?.limit || ROSTER_PAGE)));
      rows = at === 0 ? [{ self: true, participant_id: 'self' }, ...others] : others;
      renderPager(e.pager, { page: at, pages, hidden: Math.max(0, total - rows.length) }, (d) => this.#turnServerPage(d, page), 'people');
    } else {
      const others = Object.values(s.participants).sort((x, y) => roleRank(x.role) - roleRank(y.role) || x.display_name.localeCompare(y.display_name));
      e.inTitle.textContent = `In the meeting (${others.length + 1})`;
      const all = [{ self: true, participant_id: 'self' }, ...others];
      // paged: a large meeting's roster is never a thousand DOM rows
      const rpg = pageOf(all.map((p) => p.participant_id), this.ui.rosterPage, ROSTER_PAGE);
      this.ui.rosterPage = rpg.page;
      rows = all.slice(rpg.page * ROSTER_PAGE, rpg.page * ROSTER_PAGE + ROSTER_PAGE);
      renderPager(e.pager, rpg, (d) => { this.ui.rosterPage += d; this.keys.side = null; this.#renderSide(this.state); }, 'people');
    }
    keyedList(e.list, rows, (p) => p.participant_id,
      (p) => p.self ? JSON.stringify([s.self.display_name, s.self.role, s.self.mic.on])
        : JSON.stringify([p.display_name, p.role, p.publish, p.connection, p.muted, mod, s.self.role, latest[p.participant_id] || null]),
      (p) => p.self ? h('li', { 'data-testid': 'participant-self' },
        h('span', { class: 'pname' }, (s.self.display_name || 'You') + ' (you)'),
        ROLE_LABEL[s.self.role] ? h('span', { class: 'role' }, ROLE_LABEL[s.self.role]) : null,
        h('span', { class: 'mic ' + (s.self.mic.on ? 'on' : 'off'), role: 'img', 'aria-label': s.self.mic.on ? 'Microphone on' : 'Muted' }))
        : this.#participantRow(p, s, mod, latest[p.participant_id]), e.rows);
    this.#markSpeakers(s);
  }

  /**
   * The raise-hand queue (moderators): first raised first, as the server orders it. "Allow to speak" lets the
   * person publish (their hand goes down); the first row is the one waiting longest.
   */
  #renderHands(s, mod) {
    const e = this.sideEls;
    const a = this.deps.actions;
    const hands = mod ? s.raisedHands || [] : [];
    e.handsSection.hidden = hands.length === 0;
    e.handsTitle.textContent = `Raised hands (${hands.length})`;
    keyedList(e.handsList, hands, (x) => x.participant_id, (x) => JSON.stringify([x.display_name, x.raised_at]), (x) => h('li', { 'data-testid': 'hand-' + x.participant_id },
      h('span', { class: 'pname' }, x.display_name),
      h('span', { class: 'pactions' },
        h('button', { class: 'primary small', 'data-focus': 'allow-' + x.participant_id, 'data-testid': 'allow-speak', 'aria-label': `Allow ${x.display_name} to speak`, onclick: () => a.allowSpeak(x.participant_id) }, 'Allow to speak'),
        h('button', { class: 'small', 'data-focus': 'lower-' + x.participant_id, 'data-testid': 'lower-hand', 'aria-label': `Lower ${x.display_name}'s hand`, onclick: () => a.lowerHand(x.participant_id) }, 'Lower'))), e.handRows);
  }

  /** Paged roster: the next or previous server page (cursors kept as a stack: the server pages forward only). */
  #turnServerPage(d, page) {
    const c = this.ui.rosterCursors;
    if (d > 0 && page?.next) c.push(page.next);
    else if (d < 0 && c.length > 1) c.pop();
    else return;
    this.deps.actions.rosterPage?.({ cursor: c[c.length - 1], limit: ROSTER_PAGE });
  }

  #markSpeakers(s) {
    if (!this.sideEls) return;
    for (const [pid, r] of this.sideEls.rows) r.el.classList.toggle('speaking', s.activeSpeakers.includes(pid));
  }

  #participantRow(p, s, mod, cmd) {
    const a = this.deps.actions;
    const pid = p.participant_id;
    const isHost = s.self.role === 'host';
    return h('li', { 'data-testid': 'participant-' + pid },
      h('span', { class: 'pname' }, p.display_name),
      ROLE_LABEL[p.role] ? h('span', { class: 'role' }, ROLE_LABEL[p.role]) : null,
      p.connection === 'reconnecting' ? h('span', { class: 'role warn' }, 'Reconnecting') : null,
      h('span', { class: 'mic ' + (p.publish.audio && !p.muted ? 'on' : 'off'), role: 'img', 'aria-label': p.publish.audio ? 'Microphone allowed' : 'Muted by host' }),
      mod && cmd ? h('span', { class: 'cmd-state', 'data-testid': 'cmd-state', 'data-state': cmd.state, 'data-enforcement': cmd.media_enforcement || '' ,
        title: 'committed = saved by the server; applied = enforced by the media server' }, `${cmdLabel(cmd.type)}: ${cmd.media_enforcement === 'applied' || cmd.state === 'applied' ? 'applied' : cmd.state === 'failed' ? 'failed' : cmd.media_enforcement === 'not_required' ? 'done' : 'committed, applying…'}`) : null,
      mod && p.role !== 'host' ? h('details', { class: 'pmenu', 'data-key': 'menu-' + pid },
        h('summary', { 'data-focus': 'menu-' + pid, 'aria-label': `Actions for ${p.display_name}` }, 'Actions'),
        h('div', { class: 'menu', role: 'group', 'aria-label': `Actions for ${p.display_name}` },
          p.publish.audio
            ? h('button', { 'data-testid': 'action-mute', 'data-focus': 'mute-' + pid, onclick: () => a.mute(pid) }, 'Mute')
            : h('button', { 'data-testid': 'action-request-unmute', 'data-focus': 'ask-' + pid, onclick: () => a.requestUnmute(pid) }, 'Ask to unmute'),
          h('button', { 'data-testid': 'action-remove', class: 'danger', 'data-focus': 'remove-' + pid, onclick: () => { if (a.confirm(`Remove ${p.display_name}? They will not be able to rejoin.`)) a.remove(pid); } }, 'Remove'),
          isHost ? h('button', { 'data-testid': 'action-cohost', 'data-focus': 'cohost-' + pid, onclick: () => a.setRole(pid, p.role === 'cohost' ? 'attendee' : 'cohost') }, p.role === 'cohost' ? 'Remove co-host' : 'Make co-host') : null,
          isHost ? h('button', { 'data-testid': 'action-host', 'data-focus': 'host-' + pid, onclick: () => { if (a.confirm(`Make ${p.display_name} the host? You become a participant.`)) a.transferHost(pid); } }, 'Make host') : null)) : null);
  }

  // ---------------------------------------------------------------- controls

  #controlsKey(s) {
    return JSON.stringify([s.self.mic, s.self.camera, s.self.screen, s.self.role, s.self.permissions, s.meeting?.locked, s.recording.state, s.connection,
      s.self.handRaised, s.policy?.unmutePolicy]);
  }

  #renderControls(s) {
    const a = this.deps.actions;
    const mod = s.self.role === 'host' || s.self.role === 'cohost';
    const micBlocked = !s.self.permissions.audio.allowed;
    const recording = ['requested', 'starting', 'recording'].includes(s.recording.state);
    replace(this.controls, [
      h('button', { class: 'ctl ' + (s.self.mic.on ? 'on' : 'off'), 'data-testid': 'mic-toggle', 'data-focus': 'mic', 'aria-pressed': String(!s.self.mic.on),
        'aria-label': s.self.mic.on ? 'Mute microphone' : micBlocked ? 'Microphone turned off by the host' : 'Unmute microphone', onclick: () => a.toggleMic() },
        h('span', { class: 'icon mic-icon', 'aria-hidden': 'true' }), h('span', { class: 'lbl' }, s.self.mic.on ? 'Mute' : micBlocked ? 'Muted by host' : 'Unmute')),
      h('button', { class: 'ctl ' + (s.self.camera.on ? 'on' : 'off'), 'data-testid': 'camera-toggle', 'data-focus': 'cam', 'aria-pressed': String(!s.self.camera.on),
        'aria-label': s.self.camera.on ? 'Turn camera off' : 'Turn camera on', onclick: () => a.toggleCamera() },
        h('span', { class: 'icon cam-icon', 'aria-hidden': 'true' }), h('span', { class: 'lbl' }, s.self.camera.on ? 'Stop video' : 'Start video')),
      h('button', { class: 'ctl ' + (s.self.screen.on ? 'active' : ''), 'data-testid': 'screen-toggle', 'data-focus': 'screen', 'aria-pressed': String(s.self.screen.on),
        'aria-label': s.self.screen.on ? 'Stop sharing your screen' : 'Share your screen', onclick: () => a.toggleScreen() },
        h('span', { class: 'icon screen-icon', 'aria-hidden': 'true' }), h('span', { class: 'lbl' }, s.self.screen.on ? 'Stop share' : 'Share')),
      h('button', { class: 'ctl ' + (s.self.handRaised ? 'active' : ''), 'data-testid': 'hand-toggle', 'data-focus': 'hand', 'aria-pressed': String(!!s.self.handRaised),
        'aria-label': s.self.handRaised ? 'Lower your hand' : 'Raise your hand', onclick: () => a.toggleHand() },
        h('span', { class: 'icon hand-icon', 'aria-hidden': 'true' }, '\u270B'), h('span', { class: 'lbl' }, s.self.handRaised ? 'Lower hand' : 'Raise hand')),
      mod ? h('button', { class: 'ctl ' + (s.policy?.unmutePolicy === 'hosts_and_presenters' ? 'active' : ''), 'data-testid': 'unmute-policy-toggle', 'data-focus': 'unmutepolicy',
        'aria-pressed': String(s.policy?.unmutePolicy === 'hosts_and_presenters'),
        'aria-label': s.policy?.unmutePolicy === 'hosts_and_presenters' ? 'Let everyone unmute' : 'Only hosts and presenters may unmute',
        onclick: () => a.setUnmutePolicy(s.policy?.unmutePolicy === 'hosts_and_presenters' ? 'everyone' : 'hosts_and_presenters') },
        h('span', { class: 'lbl' }, s.policy?.unmutePolicy === 'hosts_and_presenters' ? 'Let all unmute' : 'Presenters only')) : null,
      mod ? h('button', { class: 'ctl', 'data-testid': 'mute-all', 'data-focus': 'muteall', onclick: () => a.muteAll() }, h('span', { class: 'icon muteall-icon', 'aria-hidden': 'true' }), h('span', { class: 'lbl' }, 'Mute all')) : null,
      mod ? h('button', { class: 'ctl ' + (s.meeting?.locked ? 'active' : ''), 'data-testid': 'lock-toggle', 'data-focus': 'lock', 'aria-pressed': String(!!s.meeting?.locked), onclick: () => a.lock(!s.meeting?.locked) },
        h('span', { class: 'icon lock-icon', 'aria-hidden': 'true' }), h('span', { class: 'lbl' }, s.meeting?.locked ? 'Unlock' : 'Lock')) : null,
      mod ? h('button', { class: 'ctl ' + (recording ? 'rec' : ''), 'data-testid': 'record-toggle', 'data-focus': 'rec', 'aria-pressed': String(recording), onclick: () => a.record(!recording) },
        h('span', { class: 'icon rec-icon', 'aria-hidden': 'true' }), h('span', { class: 'lbl' }, recording ? 'Stop rec' : 'Record')) : null,
      this.#devicesMenu(),
      h('span', { class: 'spacer' }),
      h('button', { class: 'ctl leave', 'data-testid': 'leave', 'data-focus': 'leave', onclick: () => a.leave() }, h('span', { class: 'lbl' }, 'Leave')),
      s.self.role === 'host' ? h('button', { class: 'ctl danger', 'data-testid': 'end-meeting', 'data-focus': 'end', onclick: () => { if (a.confirm('End the meeting for everyone?')) a.endMeeting(); } }, h('span', { class: 'lbl' }, 'End for all')) : null,
    ]);
  }

  /**
   * Camera and microphone choice during the call. Switching is a replaceTrack on the same sender (no
   * renegotiation, nobody notices but the picture); the lists are read when the menu opens.
   */
  #devicesMenu() {
    const a = this.deps.actions;
    const camSel = h('select', { 'data-testid': 'call-camera-select', 'aria-label': 'Camera' });
    const micSel = h('select', { 'data-testid': 'call-mic-select', 'aria-label': 'Microphone' });
    const fill = async () => {
      const d = await a.listDevices();
      for (const [sel, list, cur, kind] of [[camSel, d.cameras, d.currentCamera, 'Camera'], [micSel, d.microphones, d.currentMicrophone, 'Microphone']]) {
        sel.replaceChildren(...list.map((x, i) => h('option', { value: x.deviceId }, x.label || `${kind} ${i + 1}`)));
        if (!list.length) sel.append(h('option', { value: '' }, `No ${kind.toLowerCase()} found`));
        if (cur) sel.value = cur;
      }
    };
    camSel.addEventListener('change', () => a.switchDevice('camera', camSel.value));
    micSel.addEventListener('change', () => a.switchDevice('microphone', micSel.value));
    const menu = h('details', { class: 'devmenu', 'data-key': 'devices', 'data-testid': 'devices-menu' },
      h('summary', { class: 'ctl', 'data-focus': 'devices', 'aria-label': 'Choose camera and microphone' }, h('span', { class: 'icon cam-icon', 'aria-hidden': 'true' }), h('span', { class: 'lbl' }, 'Devices')),
      h('div', { class: 'menu', role: 'group', 'aria-label': 'Camera and microphone' },
        h('label', {}, 'Camera', camSel), h('label', {}, 'Microphone', micSel)));
    menu.addEventListener('toggle', () => {
      if (!menu.open) return;
      // The controls bar scrolls sideways (it would clip an absolute popup): place the panel fixed, above the button.
      const r = menu.querySelector('summary').getBoundingClientRect();
      const panel = menu.querySelector('.menu');
      panel.style.left = Math.max(8, Math.min(r.left, innerWidth - 260)) + 'px';
      panel.style.bottom = Math.round(innerHeight - r.top + 8) + 'px';
      fill().catch(() => {});
    });
    return menu;
  }

  #renderDialog(s) {
    if (!s.unmuteRequest) { replace(this.dialog, []); return; }
    const a = this.deps.actions;
    const d = h('div', { class: 'dialog', role: 'alertdialog', 'aria-modal': 'true', 'aria-labelledby': 'unmute-title', 'data-testid': 'unmute-request' },
      h('h2', { id: 'unmute-title' }, 'The host asks you to unmute'),
      h('p', {}, 'Your microphone stays off unless you choose to unmute.'),
      h('div', { class: 'row' },
        h('button', { class: 'primary', 'data-testid': 'unmute-accept', onclick: () => a.answerUnmute(true) }, 'Unmute'),
        h('button', { 'data-testid': 'unmute-decline', onclick: () => a.answerUnmute(false) }, 'Stay muted')));
    replace(this.dialog, h('div', { class: 'scrim' }, d));
    d.querySelector('button').focus();
  }

  destroy() {
    this.resize.disconnect();
    for (const a of this.audios.values()) a.srcObject = null;
    for (const t of this.tiles.values()) t.video.srcObject = null;
  }
}

function roleRank(r) { return r === 'host' ? 0 : r === 'cohost' ? 1 : 2; }

/** The newest command per participant (what the participant list shows next to a name). */
function latestCommands(commands) {
  const out = {};
  for (const [id, c] of Object.entries(commands || {})) {
    if (!c.participant_id) continue;
    const prev = out[c.participant_id];
    if (!prev || (c.sentAt || 0) >= (prev.sentAt || 0)) out[c.participant_id] = { ...c, id };
  }
  return out;
}

function cmdLabel(type) {
  return ({ set_publish: 'Mute', request_unmute: 'Unmute request', remove_participant: 'Remove', set_role: 'Role', transfer_host: 'Host', admit: 'Admit', deny: 'Deny',
    allow_speak: 'Allow to speak', lower_hand: 'Lower hand' })[type] || type;
}

/** Everyone in the meeting, self included: the server's count when the roster is paged. */
function peopleCount(s) {
  return s.roster?.paged && Number.isFinite(s.roster.count) ? s.roster.count : Object.keys(s.participants).length + 1;
}
