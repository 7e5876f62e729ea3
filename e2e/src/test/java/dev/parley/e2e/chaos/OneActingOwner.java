package dev.parley.e2e.chaos;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * At most one acting owner epoch per meeting: at no poll do two controllers both claim a meeting
 * ({@code owned_here}) while both confirm their etcd lease (readiness UP); and epochs only go up, in PostgreSQL and
 * at each SFU process (a restarted SFU starts empty).
 */
final class OneActingOwner extends Invariant {
    private final Map<String, Long> pgHighest = new ConcurrentHashMap<>();
    private final Map<String, Long> sfuHighest = new ConcurrentHashMap<>();

    OneActingOwner() {
        super("at most one acting owner epoch per meeting");
    }

    @Override
    void observe(Observation o) {
        for (Map.Entry<String, List<Observation.OwnerView>> e : o.owners().entrySet()) {
            List<Observation.OwnerView> acting = e.getValue().stream()
                .filter(v -> v.answered() && v.ready() && v.ownedHere()).toList();
            if (e.getValue().stream().noneMatch(Observation.OwnerView::answered)) continue;
            check(acting.size() <= 1, () -> "meeting " + e.getKey() + " is owned by " + acting.size() + " ready controllers: " + acting);
        }
        for (Map.Entry<String, Long> e : o.pgEpochBefore().entrySet()) {
            Long prev = pgHighest.merge(e.getKey(), e.getValue(), Math::max);
            check(e.getValue() >= prev, () -> "PostgreSQL epoch of " + e.getKey() + " went down from " + prev + " to " + e.getValue());
        }
        for (Observation.SfuView s : o.sfus()) {
            if (s.reach() != Observation.Reach.ANSWERED) continue;
            for (Observation.SfuMeeting m : s.meetings().values()) {
                String k = s.pod() + "#" + s.incarnation() + "/" + m.meetingId();
                long prev = sfuHighest.getOrDefault(k, Long.MIN_VALUE);
                sfuHighest.merge(k, m.epoch(), Math::max);
                check(m.epoch() >= prev, () -> s.pod() + " epoch of " + m.meetingId() + " went down from " + prev + " to " + m.epoch());
            }
        }
    }
}
