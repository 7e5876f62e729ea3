package dev.parley.e2e.chaos;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every meeting's media comes back within {@code boundMs} after each fault: "back" is the end of the meeting's last
 * interruption (a poll at which some pair of its participants had no new packet for 1.2 s), counted from the end
 * of the fault (its injection for instantaneous faults). Times are kept per fault, for the meetings the fault
 * interrupted (the others are counted), for the README table.
 */
final class MediaComesBack extends Invariant {
    final long boundMs;
    private final Map<String, List<Long>> backMs = new LinkedHashMap<>();

    MediaComesBack(long boundMs) {
        super("media back within bound after each fault");
        this.boundMs = boundMs;
    }

    /** Meetings whose media the fault did not interrupt, per fault. */
    private final Map<String, Integer> untouched = new LinkedHashMap<>();

    /** {@code ms}: {@link #NOT_BACK} = not back within the observation, {@link #NEVER_STOPPED} = not interrupted. */
    synchronized void record(String fault, String meetingId, long ms) {
        backMs.computeIfAbsent(fault, k -> new ArrayList<>());
        if (ms == NEVER_STOPPED) {
            untouched.merge(fault, 1, Integer::sum);
            check(true, () -> "");
            return;
        }
        if (ms >= 0) backMs.get(fault).add(ms);
        check(ms >= 0 && ms <= boundMs, () -> "meeting " + meetingId + (ms < 0 ? " had no media back" : " media back after " + ms + " ms")
            + " (bound " + boundMs + " ms)");
    }

    static final long NEVER_STOPPED = -2, NOT_BACK = -1;

    synchronized int untouched(String fault) {
        return untouched.getOrDefault(fault, 0);
    }

    /** Back times of the interrupted meetings, per fault. */
    synchronized Map<String, List<Long>> times() {
        Map<String, List<Long>> copy = new LinkedHashMap<>();
        backMs.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        return copy;
    }

    /**
     * From one meeting's flow samples (nanos, flowing) taken after {@code injectNanos}: when media was back, in ms
     * after {@code healNanos}; {@link #NOT_BACK} if it is not flowing at the last sample, {@link #NEVER_STOPPED} if
     * it was never interrupted.
     */
    static long backAfter(List<long[]> samples, long injectNanos, long healNanos) {
        long lastStop = -1;
        long backAt = -1;
        for (long[] s : samples) {
            if (s[0] < injectNanos) continue;
            if (s[1] == 0) {
                lastStop = s[0];
                backAt = -1;
            } else if (backAt < 0) {
                backAt = s[0];
            }
        }
        if (lastStop < 0) return NEVER_STOPPED;
        if (backAt < 0) return NOT_BACK;
        return Math.max(0, (backAt - healNanos) / 1_000_000);
    }
}
