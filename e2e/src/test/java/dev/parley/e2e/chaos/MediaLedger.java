package dev.parley.e2e.chaos;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Receive counters of every (meeting, subscriber, publisher) pair, from the load client and the browsers' WebRTC
 * stats, turned into {@link MediaWindow}s for the invariants and into "is this pair's media flowing" answers. A
 * counter that goes down (a new peer connection after a generation change) counts from zero again.
 */
final class MediaLedger {
    private record Last(long nanos, long wallMs, long count, long lastIncreaseNanos) {
    }

    private final Map<String, Last> last = new ConcurrentHashMap<>();
    private final List<Consumer<MediaWindow>> listeners = new CopyOnWriteArrayList<>();

    void listen(Consumer<MediaWindow> l) {
        listeners.add(l);
    }

    void record(String meetingId, String sub, String pub, long nanos, long wallMs, long count) {
        record(meetingId, sub, pub, nanos, wallMs, count, false);
    }

    void record(String meetingId, String sub, String pub, long nanos, long wallMs, long count, boolean coarse) {
        record(meetingId, sub, pub, nanos, wallMs, count, coarse, Long.MAX_VALUE);
    }

    /** As above; {@code earliestSentNanos}: the earliest send time stamped in the packets counted since the last record. */
    void record(String meetingId, String sub, String pub, long nanos, long wallMs, long count, boolean coarse, long earliestSentNanos) {
        String k = meetingId + "/" + sub + "/" + pub;
        Last prev = last.get(k);
        if (prev == null) {
            last.put(k, new Last(nanos, wallMs, count, count > 0 ? nanos : 0));
            return;
        }
        long delta = count >= prev.count ? count - prev.count : count;
        last.put(k, new Last(nanos, wallMs, count, delta > 0 ? nanos : prev.lastIncreaseNanos));
        MediaWindow w = new MediaWindow(meetingId, sub, pub, prev.nanos, nanos, prev.wallMs, wallMs, delta, coarse, earliestSentNanos);
        for (Consumer<MediaWindow> l : listeners) l.accept(w);
    }

    /** When {@code sub} last saw new packets from {@code pub} (0: never). */
    long lastIncrease(String meetingId, String sub, String pub) {
        Last l = last.get(meetingId + "/" + sub + "/" + pub);
        return l == null ? 0 : l.lastIncreaseNanos;
    }

    /** Every ordered pair of {@code pids} got new packets within {@code windowNanos} before {@code now}. */
    boolean flowing(String meetingId, List<String> pids, long now, long windowNanos) {
        if (pids.size() < 2) return true;
        for (String s : pids) {
            for (String p : pids) {
                if (s.equals(p)) continue;
                if (now - lastIncrease(meetingId, s, p) > windowNanos) return false;
            }
        }
        return true;
    }
}
