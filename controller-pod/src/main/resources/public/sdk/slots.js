// Subscribe-side slot mapping (docs/internal-api.md): the subscribe peer connection is offered with a
// number of recvonly audio/video transceivers ("slots"); the SFU answers with `slot_assignments`
// telling which mid carries which remote participant's track. The client uses that map, not SSRCs or
// stream ids, to put each incoming track on the right tile.

/**
 * @typedef {Object} SlotAssignment
 * @property {string} mid
 * @property {string|null} participant_id   null/absent = slot is free
 * @property {string} [track_id]
 * @property {'audio'|'video'} [kind]
 * @property {'microphone'|'camera'|'screen'} [source]
 */

/**
 * @typedef {Object} RemoteTrackRef
 * @property {string} mid
 * @property {string} participantId
 * @property {string} trackId
 * @property {'audio'|'video'} kind
 * @property {'microphone'|'camera'|'screen'} source
 */

/**
 * The publish connection of every Parley client has its transceivers in a fixed order, so the publisher's
 * mid says what a track is: 0 microphone, 1 camera, 2 screen. The SFU names tracks `{participant}:{mid}`.
 */
export const PUBLISH_SOURCE_BY_MID = Object.freeze({ 0: 'microphone', 1: 'camera', 2: 'screen' });

/** Source of a remote track: the server's word, else the publisher's mid in the track id, else by kind. */
export function sourceOf(kind, trackId) {
  const m = /:(\d+)$/.exec(trackId || '');
  const byMid = m ? PUBLISH_SOURCE_BY_MID[m[1]] : undefined;
  if (byMid && (byMid === 'microphone') === (kind === 'audio')) return byMid;
  return kind === 'audio' ? 'microphone' : 'camera';
}

/**
 * Normalise the server's list (array, or object keyed by mid) into mid -> RemoteTrackRef.
 * Free slots and malformed entries are left out.
 * @param {SlotAssignment[]|Object<string, any>} assignments
 * @param {Object<string, 'audio'|'video'>} [kindByMid] kinds of our own transceivers (the truth for kind)
 * @returns {Map<string, RemoteTrackRef>}
 */
export function mapSlots(assignments, kindByMid = {}) {
  const list = Array.isArray(assignments)
    ? assignments
    : Object.entries(assignments || {}).map(([mid, v]) => ({ mid, ...(v || {}) }));
  const out = new Map();
  for (const a of list) {
    if (!a || a.mid === undefined || a.mid === null) continue;
    const mid = String(a.mid);
    if (!a.participant_id) continue;
    const kind = kindByMid[mid] || a.kind;
    if (kind !== 'audio' && kind !== 'video') continue;
    if (a.kind && kindByMid[mid] && a.kind !== kindByMid[mid]) continue; // server and SDP disagree: ignore
    const trackId = String(a.track_id || `${a.participant_id}:${kind === 'audio' ? 0 : 1}`);
    out.set(mid, { mid, participantId: String(a.participant_id), trackId, kind, source: a.source || sourceOf(kind, trackId) });
  }
  return out;
}

/**
 * Differences between two maps, so the UI attaches/detaches only what changed.
 * @param {Map<string, RemoteTrackRef>} prev @param {Map<string, RemoteTrackRef>} next
 * @returns {{added: RemoteTrackRef[], removed: RemoteTrackRef[]}}
 */
export function diffSlots(prev, next) {
  const added = [];
  const removed = [];
  for (const [mid, ref] of prev) {
    const n = next.get(mid);
    if (!n || n.trackId !== ref.trackId || n.participantId !== ref.participantId) removed.push(ref);
  }
  for (const [mid, ref] of next) {
    const p = prev.get(mid);
    if (!p || p.trackId !== ref.trackId || p.participantId !== ref.participantId) added.push(ref);
  }
  return { added, removed };
}

/**
 * Slot map deltas (docs/api.md "Slot maps"): a client whose subscribe offer said `slot_deltas: true` gets top-N moves
 * as `slot_delta {base, version, changes}`; whole maps (answer, `subscribed`) carry `slot_version`. Where a delta
 * stands against the map we hold at `version`: 'apply' (made from our map), 'stale' (our map already has it: a whole
 * map at or past its version came first) or 'gap' (one was lost: ask for the whole map).
 * @param {number|null} version @param {{base:number, version:number}} delta @returns {'apply'|'stale'|'gap'}
 */
export function deltaFits(version, delta) {
  const base = Number(delta?.base);
  const next = Number(delta?.version);
  if (!Number.isFinite(base) || !Number.isFinite(next)) return 'gap';
  if (version !== null && version !== undefined && next <= version) return 'stale';
  return base === version ? 'apply' : 'gap';
}

/**
 * Whether a whole map of version `incoming` replaces ours (at `version`): not when it is older (it crossed a delta
 * on the way); a map without a version (an older server) always does.
 * @param {number|null} version @param {number|null|undefined} incoming
 */
export function wholeMapFits(version, incoming) {
  return incoming === null || incoming === undefined || version === null || version === undefined || Number(incoming) >= version;
}

/**
 * The server's assignment list after a delta: each change replaces its mid's entry; a change without
 * participant_id empties the slot. Other slots are kept as they were.
 * @param {SlotAssignment[]|Object<string, any>|null} assignments @param {SlotAssignment[]} changes
 * @returns {SlotAssignment[]}
 */
export function applySlotDelta(assignments, changes) {
  const list = Array.isArray(assignments)
    ? assignments
    : Object.entries(assignments || {}).map(([mid, v]) => ({ mid, ...(v || {}) }));
  const byMid = new Map();
  for (const a of list) if (a && a.mid !== undefined && a.mid !== null) byMid.set(String(a.mid), a);
  for (const c of changes || []) {
    if (!c || c.mid === undefined || c.mid === null) continue;
    if (c.participant_id) byMid.set(String(c.mid), c);
    else byMid.delete(String(c.mid));
  }
  return [...byMid.values()];
}

/**
 * How many recvonly slots of each kind to offer for a roster of `remoteCount` participants:
 * one camera per remote participant plus one video for a screen share, rounded up to a step so that a growing
 * roster does not renegotiate on every join. Audio: the meeting's top-N (`audioTopN`, the SFU forwards only the N
 * loudest speakers and moves these slots between them), or one per remote participant when it is not known.
 * @param {number} remoteCount @param {number} [step=4] @param {number} [maxVideo=16] @param {number|null} [audioTopN]
 * @returns {{audio:number, video:number}}
 */
export function slotsNeeded(remoteCount, step = 4, maxVideo = 16, audioTopN = null) {
  const n = Math.max(0, remoteCount);
  const round = (x) => Math.max(step, Math.ceil(x / step) * step);
  const topN = Number(audioTopN);
  return { audio: Number.isInteger(topN) && topN > 0 ? topN : round(n), video: Math.min(maxVideo, round(n + 1)) };
}
