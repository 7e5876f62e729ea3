package dev.parley.controller.signaling;

import java.util.concurrent.ConcurrentHashMap;

/**
 * How many sockets that have not joined yet each source address holds, and the cap on it. A socket holds a slot
 * from its opening until it joins or closes; joined sockets take none. Without a cap one address could open
 * sockets without end, each costing a connection and a join timer until its bound runs out.
 */
final class UnjoinedSockets {
    private final int maxPerSource;
    private final ConcurrentHashMap<String, Integer> bySource = new ConcurrentHashMap<>();

    /** {@code maxPerSource} ≤ 0: no cap (still counted). */
    UnjoinedSockets(int maxPerSource) {
        this.maxPerSource = maxPerSource;
    }

    /**
     * Takes a slot of {@code source} for {@code c} unless c has already joined (a message may be handled before
     * the open callback runs); false when the source holds the maximum already.
     */
    boolean admit(Conn c, String source) {
        synchronized (c) {
            if (c.joined() || c.unjoinedSource != null) {
                return true;
            }
            boolean[] taken = {false};
            bySource.compute(source, (k, n) -> {
                int held = n == null ? 0 : n;
                if (maxPerSource > 0 && held >= maxPerSource) {
                    return n;
                }
                taken[0] = true;
                return held + 1;
            });
            if (taken[0]) {
                c.unjoinedSource = source;
            }
            return taken[0];
        }
    }

    /** Gives back c's slot, if it holds one (on join and on close; a second call does nothing). */
    void release(Conn c) {
        synchronized (c) {
            String source = c.unjoinedSource;
            if (source == null) {
                return;
            }
            c.unjoinedSource = null;
            bySource.computeIfPresent(source, (k, n) -> n <= 1 ? null : n - 1);
        }
    }

    /** Slots held by {@code source} (tests, diagnostics). */
    int held(String source) {
        return bySource.getOrDefault(source, 0);
    }
}
