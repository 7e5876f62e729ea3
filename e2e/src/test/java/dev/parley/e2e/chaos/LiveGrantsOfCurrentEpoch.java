package dev.parley.e2e.chaos;

import java.util.Map;

/**
 * Grants are of the current epoch only. Each poll reads PostgreSQL's {@code meetings.controller_epoch} before and
 * after the SFUs: once a higher epoch is committed, an SFU still at a lower epoch for that meeting must hold no live
 * grant (the old owner's grants end before its lease, and the new owner acquires only after the lease), and no SFU
 * may hold an epoch PostgreSQL has never had (the new owner raises the epoch before it acts).
 */
final class LiveGrantsOfCurrentEpoch extends Invariant {
    LiveGrantsOfCurrentEpoch() {
        super("live grants only of the current epoch");
    }

    @Override
    void observe(Observation o) {
        for (Observation.SfuView s : o.sfus()) {
            if (s.reach() != Observation.Reach.ANSWERED) continue;
            for (Observation.SfuMeeting m : s.meetings().values()) {
                Long before = o.pgEpochBefore().get(m.meetingId());
                Long after = o.pgEpochAfter().get(m.meetingId());
                if (before != null && m.epoch() < before) {
                    long live = m.participants().values().stream().filter(p -> p.grantLiveMs() > 0).count();
                    check(live == 0, () -> s.pod() + " holds " + live + " live grant(s) of epoch " + m.epoch() + " in meeting "
                        + m.meetingId() + " after PostgreSQL moved to epoch " + before + ": " + liveOnes(m.participants()));
                }
                if (after != null) {
                    check(m.epoch() <= after, () -> s.pod() + " is at epoch " + m.epoch() + " for meeting " + m.meetingId()
                        + " but PostgreSQL says " + after);
                }
            }
        }
    }

    private static String liveOnes(Map<String, Observation.SfuParticipant> ps) {
        StringBuilder sb = new StringBuilder();
        ps.values().stream().filter(p -> p.grantLiveMs() > 0)
            .forEach(p -> sb.append(p.pid()).append(" (").append(p.grantLiveMs()).append(" ms) "));
        return sb.toString().trim();
    }
}
