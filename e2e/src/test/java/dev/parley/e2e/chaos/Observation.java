package dev.parley.e2e.chaos;

import java.util.List;
import java.util.Map;

/**
 * What one poll of the platform saw (every ~250 ms): PostgreSQL's epoch per meeting read before and after the SFUs,
 * every SFU's {@code GET /internal/v1/state}, and each controller's view of each meeting
 * ({@code GET /internal/v1/meetings/{id}/state} + readiness). Plain data, so invariants can be unit-tested on
 * hand-made snapshots.
 */
record Observation(long nanos, long wallMs, Map<String, Long> pgEpochBefore, Map<String, Long> pgEpochAfter,
                   List<SfuView> sfus, Map<String, List<OwnerView>> owners) {

    enum Reach { ANSWERED, DEAD, UNKNOWN }

    /** One participant at one SFU: grant version and how long its grant still lives. */
    record SfuParticipant(String pid, long grantVersion, long grantLiveMs) {
    }

    /**
     * One SFU: DEAD when its process is gone (it forwards nothing), UNKNOWN when it did not answer in time (it may
     * still forward). {@code meetings}: meeting → (highest epoch, participants).
     */
    record SfuView(String pod, int incarnation, Reach reach, Map<String, SfuMeeting> meetings, int transports) {
    }

    record SfuMeeting(String meetingId, long epoch, Map<String, SfuParticipant> participants) {
    }

    /** One controller's view of one meeting; {@code ready}: its readiness (lease confirmed) answered UP. */
    record OwnerView(String pod, boolean answered, boolean ready, boolean ownedHere, long ownerEpoch) {
    }

    /**
     * Whether {@code pid}'s grant in {@code meetingId} may let media through right now: LIVE if any answering SFU
     * holds a live grant, UNKNOWN if some SFU did not answer, else EXPIRED (absent, expired, or only on dead SFUs).
     */
    /**
     * What the controllers last pushed for {@code pid}, as the answering SFUs show it: each SFU's epoch for the meeting
     * and the participant's grant version there (-1 when absent). It changes when an owner pushes a new grant or a new
     * epoch takes over, even when both polls around the push saw the grant expired (a takeover that grants a
     * participant and revokes it a moment later, inside one poll interval).
     */
    long grantMark(String meetingId, String pid) {
        long mark = 17;
        for (SfuView s : sfus) {
            if (s.reach() != Reach.ANSWERED) continue;
            SfuMeeting m = s.meetings().get(meetingId);
            if (m == null) continue;
            SfuParticipant p = m.participants().get(pid);
            mark = mark * 31 + s.pod().hashCode();
            mark = mark * 31 + m.epoch();
            mark = mark * 31 + (p == null ? -1 : p.grantVersion());
        }
        return mark;
    }

    GrantTimeline.State grantState(String meetingId, String pid) {
        boolean unknown = false;
        for (SfuView s : sfus) {
            if (s.reach() == Reach.UNKNOWN) {
                unknown = true;
                continue;
            }
            if (s.reach() == Reach.DEAD) continue;
            SfuMeeting m = s.meetings().get(meetingId);
            SfuParticipant p = m == null ? null : m.participants().get(pid);
            if (p != null && p.grantLiveMs() > 0) return GrantTimeline.State.LIVE;
        }
        return unknown ? GrantTimeline.State.UNKNOWN : GrantTimeline.State.EXPIRED;
    }
}
