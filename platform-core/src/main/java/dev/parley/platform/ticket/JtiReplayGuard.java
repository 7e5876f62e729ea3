package dev.parley.platform.ticket;

import java.time.Clock;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Remembers each ticket id until its expiry so that a ticket is accepted once (seed 002: a short expiry
 * alone is not single use). Memory is bounded by the issue rate times 30 s; expired ids are purged lazily.
 */
public final class JtiReplayGuard {
    private final Map<String, Long> seen = new ConcurrentHashMap<>();
    private final Clock clock;
    private final AtomicLong lastPurge = new AtomicLong();

    public JtiReplayGuard(Clock clock) {
        this.clock = clock;
    }

    public JtiReplayGuard() {
        this(Clock.systemUTC());
    }

    /** True the first time a jti is presented (before its expiry); false on every replay. */
    public boolean firstUse(String jti, long expEpochSeconds) {
        long now = clock.instant().getEpochSecond();
        purgeIfDue(now);
        return seen.putIfAbsent(jti, expEpochSeconds) == null;
    }

    public int size() {
        return seen.size();
    }

    private void purgeIfDue(long now) {
        long last = lastPurge.get();
        if (now - last < 5 || !lastPurge.compareAndSet(last, now)) {
            return;
        }
        for (Iterator<Map.Entry<String, Long>> it = seen.entrySet().iterator(); it.hasNext(); ) {
            if (it.next().getValue() < now - 1) {
                it.remove();
            }
        }
    }
}
