package dev.parley.sfu.allocation;

import java.util.HashMap;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * At most one keyframe request (PLI/FIR) per publisher stream per interval, whoever asks: every subscriber's
 * PLI and every allocator layer switch for the same SSRC share it. A burst of 50 subscribers joining, or of
 * allocators switching layers after a network blip, would otherwise make the publisher send 50 keyframes,
 * each several times the size of a normal frame, which itself congests the publisher's uplink.
 *
 * <p>A request inside the interval is not dropped: it is remembered and handed out by {@link #drainDue} once
 * the interval has passed, unless a keyframe arrived meanwhile (which satisfies it). Keyed by the publisher
 * stream's SSRC (one per simulcast encoding; one for an SVC stream). Not thread-safe: one per publisher
 * event loop.
 */
public final class KeyframeRequestCoalescer {

    private static final class Entry {
        long lastSentMs = Long.MIN_VALUE; // never
        boolean pending;
    }

    private final long intervalMs;
    private final Map<Long, Entry> streams = new HashMap<>();

    public KeyframeRequestCoalescer(long intervalMs) {
        if (intervalMs <= 0) {
            throw new IllegalArgumentException("interval must be positive");
        }
        this.intervalMs = intervalMs;
    }

    /** Returns true when the caller should send a request for {@code streamKey} now. */
    public boolean request(long streamKey, long nowMs) {
        Entry e = streams.computeIfAbsent(streamKey, k -> new Entry());
        if (e.lastSentMs != Long.MIN_VALUE && nowMs - e.lastSentMs < intervalMs) {
            e.pending = true;
            return false;
        }
        e.lastSentMs = nowMs;
        e.pending = false;
        return true;
    }

    /** The publisher sent a keyframe on this stream: deferred requests for it are satisfied. */
    public void onKeyframe(long streamKey) {
        Entry e = streams.get(streamKey);
        if (e != null) {
            e.pending = false;
        }
    }

    /** Hands every deferred request whose interval has passed to {@code send}; returns how many. */
    public int drainDue(long nowMs, LongConsumer send) {
        int n = 0;
        for (Map.Entry<Long, Entry> me : streams.entrySet()) {
            Entry e = me.getValue();
            if (e.pending && nowMs - e.lastSentMs >= intervalMs) {
                e.pending = false;
                e.lastSentMs = nowMs;
                send.accept(me.getKey());
                n++;
            }
        }
        return n;
    }

    /** The stream ended. */
    public void remove(long streamKey) {
        streams.remove(streamKey);
    }
}
