package dev.parley.turn.auth;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A per-source budget for challenge (401/438) responses, and nothing global: a flood from a few sources uses up
 * only its own budgets, so every other client still gets its first 401 (a shared budget let 16 flooding sources
 * starve everyone else of it). The budget exists against reflection: a spoofed source gets at most
 * {@code perSourcePerSecond} answers a second.
 *
 * <p>A source is an IPv4 address or an IPv6 /64 (one subscriber's prefix). Counting is a count-min sketch over a
 * fixed table: each source maps to two cells by a hash keyed with a random per-process seed, both count its
 * challenges, and it is refused once the smaller count reaches the budget. So a source gets exactly its budget
 * unless both of its cells are shared with busy sources — which an attacker cannot aim at without the seed, and
 * cannot do blindly without flooding most of the table. Fixed size (64 KiB), lock-free (CAS on per-second cells):
 * memory cannot grow with the number of sources.
 */
public final class UnauthenticatedLimiter {
    private static final int SLOTS = 8192;
    private final AtomicLongArray cells = new AtomicLongArray(SLOTS);
    private final int perSourcePerSecond;
    private final long seed;

    public UnauthenticatedLimiter(int perSourcePerSecond) {
        this(perSourcePerSecond, new SecureRandom().nextLong());
    }

    UnauthenticatedLimiter(int perSourcePerSecond, long seed) {
        this.perSourcePerSecond = Math.max(1, perSourcePerSecond);
        this.seed = seed;
    }

    /** The budget key of a source: the IPv4 address, or the /64 of an IPv6 one. */
    public static long sourceKey(InetAddress a) {
        if (a instanceof Inet4Address) {
            return a.hashCode() & 0xFFFFFFFFL; // Inet4Address.hashCode() is the address
        }
        byte[] b = a.getAddress();
        long k = 1L << 63 | 1; // tag: never equal to an IPv4 key
        for (int i = 0; i < 8; i++) {
            k = k * 31 + (b[i] & 0xFF);
        }
        return k | 1L << 62;
    }

    /** True if a challenge may be sent to {@code sourceKey} in second {@code nowSeconds} (and counts it). */
    public boolean tryAcquire(long sourceKey, long nowSeconds) {
        long h = mix(sourceKey ^ seed);
        int a = (int) h & (SLOTS - 1);
        int b = (int) (h >>> 32) & (SLOTS - 1);
        if (b == a) {
            b = (a + 1) & (SLOTS - 1);
        }
        long window = nowSeconds & 0xFFFFFFFFFFL;
        if (Math.min(count(a, window), count(b, window)) >= perSourcePerSecond) {
            return false;
        }
        increment(a, window);
        increment(b, window);
        return true;
    }

    // Each cell packs (second << 24 | count).
    private long count(int i, long window) {
        long cur = cells.get(i);
        return (cur >>> 24) == window ? cur & 0xFFFFFF : 0;
    }

    private void increment(int i, long window) {
        while (true) {
            long cur = cells.get(i);
            long next = (cur >>> 24) == window ? ((cur & 0xFFFFFF) == 0xFFFFFF ? cur : cur + 1) : (window << 24) | 1;
            if (cells.compareAndSet(i, cur, next)) {
                return;
            }
        }
    }

    /** SplitMix64's finalizer: spreads the keyed source over the table. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
