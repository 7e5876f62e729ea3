// Large meetings in client state (docs/api.md "Large meetings"): the raise-hand queue, our own hand, whether we
// may speak, and the meeting's policy. Pure functions over the store's state, folded in by state.js.

/** The empty part of a client's state this module keeps. */
export function initialHands() {
  return {
    /** raised hands, first raised first: [{participant_id, display_name, raised_at}] */
    raisedHands: [],
    /** the meeting's policy as the server last said: {largeMeetingSize, unmutePolicy} */
    policy: { largeMeetingSize: null, unmutePolicy: 'everyone' },
  };
}

/** The queue in the server's order: by time raised, then participant id; one entry per participant. */
export function sortHands(list) {
  const seen = new Map();
  for (const h of list) if (h && h.participant_id) seen.set(String(h.participant_id), { ...h, participant_id: String(h.participant_id) });
  return [...seen.values()].sort((a, b) => (a.raised_at < b.raised_at ? -1 : a.raised_at > b.raised_at ? 1
    : a.participant_id < b.participant_id ? -1 : a.participant_id > b.participant_id ? 1 : 0));
}

function policyOf(o, prev) {
  return {
    largeMeetingSize: 'large_meeting_size' in o ? (o.large_meeting_size ?? null) : prev.largeMeetingSize,
    unmutePolicy: o.unmute_policy || prev.unmutePolicy,
  };
}

/**
 * Folds a large-meeting event into state; null when the event is none of them. Effects for the client
 * (`speak_allowed`: tell the user, never turn the microphone on by itself).
 */
export function applyHandEvent(s, ev, effects) {
  const selfId = s.self.participant_id;
  const id = ev.participant_id != null ? String(ev.participant_id) : null;
  switch (ev.type) {
    case 'hand_raised': {
      if (!id) return s;
      const raisedHands = sortHands([...(s.raisedHands || []).filter((h) => h.participant_id !== id),
        { participant_id: id, display_name: ev.display_name ?? s.participants[id]?.display_name ?? 'Guest', raised_at: String(ev.raised_at ?? '') }]);
      const self = id === selfId ? { ...s.self, handRaised: true } : s.self;
      return { ...s, raisedHands, self };
    }
    case 'hand_lowered': {
      if (!id) return s;
      const raisedHands = (s.raisedHands || []).filter((h) => h.participant_id !== id);
      const self = id === selfId ? { ...s.self, handRaised: false } : s.self;
      if (id === selfId && ev.reason === 'lowered_by_moderator') effects.push({ type: 'hand_lowered_by_moderator' });
      return { ...s, raisedHands, self };
    }
    case 'speak_allowed': {
      if (id !== selfId) return s;
      effects.push({ type: 'speak_allowed', allowed: ev.allowed !== false });
      return { ...s, self: { ...s.self, speakAllowed: ev.allowed !== false } };
    }
    case 'meeting_policy_changed':
      return { ...s, policy: policyOf(ev, s.policy || initialHands().policy) };
    default:
      return null;
  }
}

/** The snapshot's large-meeting fields (queue, policy, our own hand); replaces what we knew. */
export function applyHandSnapshot(s, snap) {
  const self = snap.self || {};
  return {
    ...s,
    raisedHands: Array.isArray(snap.raised_hands) ? sortHands(snap.raised_hands) : (s.raisedHands || []),
    policy: policyOf(snap, s.policy || initialHands().policy),
    self: { ...s.self,
      handRaised: typeof self.hand_raised === 'boolean' ? self.hand_raised : !!s.self.handRaised,
      speakAllowed: typeof self.speak_allowed === 'boolean' ? self.speak_allowed : !!s.self.speakAllowed,
      joinedMuted: typeof self.joined_muted === 'boolean' ? self.joined_muted : !!s.self.joinedMuted },
  };
}
