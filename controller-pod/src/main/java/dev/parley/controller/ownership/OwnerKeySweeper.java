package dev.parley.controller.ownership;

import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.db.Db;
import dev.parley.platform.etcd.ProcessLease;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;
import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Releases the owner keys of ended meetings this process owns (seed 002: idempotent cleanup). A key goes only
 * once PostgreSQL says the meeting is {@code ended} and none of its commands is still pending enforcement,
 * i.e. the end's revocations were acknowledged by every SFU or their grants ran out. Everything is read from
 * PostgreSQL each round, so a restarted process (whose old keys die with its old lease) needs no memory.
 */
@Context
public final class OwnerKeySweeper {
    private static final Logger LOG = LoggerFactory.getLogger(OwnerKeySweeper.class);

    private final Ownership ownership;
    private final ProcessLease lease;
    private final Db db;
    private final Counter released;
    private final ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "owner-key-sweeper");
        t.setDaemon(true);
        return t;
    });

    public OwnerKeySweeper(Ownership ownership, ProcessLease lease, Db db, MeterRegistry meters, ParleyConfig cfg) {
        this.ownership = ownership;
        this.lease = lease;
        this.db = db;
        this.released = Counter.builder("parley_owner_keys_released")
                .description("owner keys of ended meetings released from etcd").register(meters);
        exec.scheduleWithFixedDelay(this::sweepQuietly, cfg.ownerSweepMillis(), cfg.ownerSweepMillis(),
                TimeUnit.MILLISECONDS);
    }

    private void sweepQuietly() {
        try {
            sweep();
        } catch (RuntimeException ex) {
            // PostgreSQL or etcd away: the next round tries again
            LOG.debug("owner key sweep failed: {}", ex.toString());
        }
    }

    /** One round; returns how many keys it released. */
    int sweep() {
        Set<UUID> owned = ownership.ownedMeetings();
        if (owned.isEmpty() || !lease.isConfirmed()) {
            return 0;
        }
        int n = 0;
        for (UUID m : endedAndEnforced(owned)) {
            Long epoch = ownership.epochIfOwned(m);
            if (epoch != null && ownership.release(m, epoch)) {
                released.increment();
                n++;
                LOG.info("released the owner key of ended meeting {} (epoch {})", m, epoch);
            }
        }
        return n;
    }

    private List<UUID> endedAndEnforced(Set<UUID> owned) {
        return MeetingIdQuery.select(db, "SELECT m.meeting_id FROM meetings m "
                + "WHERE m.meeting_id = ANY(?) AND m.status = 'ended' AND NOT EXISTS "
                + "(SELECT 1 FROM commands k WHERE k.meeting_id = m.meeting_id AND k.media_enforcement = 'pending')", owned);
    }

    @PreDestroy
    void stop() {
        exec.shutdownNow();
    }
}
