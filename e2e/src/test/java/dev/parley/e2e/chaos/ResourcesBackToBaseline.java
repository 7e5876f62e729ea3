package dev.parley.e2e.chaos;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * After cleanup (meetings ended, clients and browsers gone) every counted resource is back where it was before the
 * first meeting: SFU transports, TURN allocations, etcd keys of meetings and recordings, signaling sockets, and
 * PostgreSQL connections: none beyond what the live controllers' pools may hold, and none busy (active or idle in
 * a transaction) for more than 5 s.
 */
final class ResourcesBackToBaseline extends Invariant {
    private final Map<String, Long> baseline = new LinkedHashMap<>();
    private final Map<String, Long> last = new LinkedHashMap<>();

    ResourcesBackToBaseline() {
        super("resources back to baseline after cleanup");
    }

    void baseline(Map<String, Long> counts) {
        baseline.clear();
        baseline.putAll(counts);
    }

    Map<String, Long> baseline() {
        return Map.copyOf(baseline);
    }

    /** True when {@code now} is at the baseline (nothing recorded as a check). */
    boolean atBaseline(Map<String, Long> now) {
        for (Map.Entry<String, Long> e : baseline.entrySet()) {
            if (!holds(e.getKey(), e.getValue(), now.get(e.getKey()))) return false;
        }
        return true;
    }

    /** One check per resource. */
    void judge(Map<String, Long> now) {
        last.clear();
        last.putAll(now);
        for (Map.Entry<String, Long> e : baseline.entrySet()) {
            Long v = now.get(e.getKey());
            check(holds(e.getKey(), e.getValue(), v), () -> e.getKey() + " is " + v + " after cleanup, baseline " + e.getValue());
        }
    }

    Map<String, Long> lastCounts() {
        return Map.copyOf(last);
    }

    private static boolean holds(String key, long base, Long now) {
        return now != null && now == base;
    }
}
