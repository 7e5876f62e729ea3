package dev.parley.turn.auth;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Limits how many challenge (401) responses are sent per second: globally, and per source address hashed into a
 * fixed table. Fixed size, lock-free (CAS on per-second windows): a flood from many addresses cannot grow memory,
 * and cannot turn the relay into a reflector.
 */
public final class UnauthenticatedLimiter {
    private static final int SLOTS = 4096;
    private final AtomicLongArray perSource = new AtomicLongArray(SLOTS);
    private final AtomicLongArray global = new AtomicLongArray(1);
    private final int globalPerSecond;
    private final int perSourcePerSecond;

    public UnauthenticatedLimiter(int globalPerSecond, int perSourcePerSecond) {
        this.globalPerSecond = globalPerSecond;
        this.perSourcePerSecond = perSourcePerSecond;
    }

    /** True if a 401 may be sent to {@code sourceHash} in second {@code nowSeconds}. */
    public boolean tryAcquire(int sourceHash, long nowSeconds) {
        int slot = (sourceHash ^ (sourceHash >>> 16)) & (SLOTS - 1);
        return take(perSource, slot, perSourcePerSecond, nowSeconds) && take(global, 0, globalPerSecond, nowSeconds);
    }

    // Each cell packs (second << 24 | count).
    private static boolean take(AtomicLongArray a, int i, int limit, long now) {
        while (true) {
            long cur = a.get(i);
            long sec = cur >>> 24;
            long count = cur & 0xFFFFFF;
            long next;
            if (sec != (now & 0xFFFFFFFFFFL)) {
                next = ((now & 0xFFFFFFFFFFL) << 24) | 1;
            } else if (count >= limit) {
                return false;
            } else {
                next = cur + 1;
            }
            if (a.compareAndSet(i, cur, next)) {
                return true;
            }
        }
    }
}
