package dev.parley.controller.ownership;

import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.db.Db;
import dev.parley.controller.http.ApiException;
import dev.parley.platform.etcd.ProcessLease;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;
import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Takes back the meetings this process dropped when its etcd lease was lost. Their owner keys died with the
 * lease and no other pod learns of it, so without this nobody renews their grants until some client sends a
 * REST request. Once a new lease is confirmed, every dropped meeting that is still live with participants is
 * routed again: we become its owner with a new epoch (grants are then pushed as after any take-over), or we
 * find that another pod took it meanwhile; either way it is forgotten. Ended or empty meetings are forgotten.
 */
@Context
public final class OwnershipReclaimer {
    private static final Logger LOG = LoggerFactory.getLogger(OwnershipReclaimer.class);

    private final Ownership ownership;
    private final ProcessLease lease;
    private final Db db;
    private final Counter reclaimed;
    private final Set<UUID> orphans = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ownership-reclaimer");
        t.setDaemon(true);
        return t;
    });

    public OwnershipReclaimer(Ownership ownership, ProcessLease lease, Db db, MeterRegistry meters, ParleyConfig cfg) {
        this.ownership = ownership;
        this.lease = lease;
        this.db = db;
        this.reclaimed = Counter.builder("parley_meetings_reclaimed_after_lease_loss")
                .description("meetings taken back (or found owned elsewhere) after this pod lost its lease")
                .register(meters);
        ownership.onDroppedWithLease(orphans::addAll);
        // short period: media of these meetings is dead until someone owns them again
        long period = Math.max(100, Math.min(500, cfg.ownerSweepMillis()));
        exec.scheduleWithFixedDelay(this::reclaimQuietly, period, period, TimeUnit.MILLISECONDS);
    }

    private void reclaimQuietly() {
        try {
            reclaim();
        } catch (RuntimeException ex) {
            LOG.debug("reclaiming meetings failed: {}", ex.toString());
        }
    }

    void reclaim() {
        if (orphans.isEmpty() || !lease.isConfirmed()) {
            return;
        }
        Set<UUID> candidates = Set.copyOf(orphans);
        Set<UUID> live = liveWithParticipants(candidates);
        for (UUID m : candidates) {
            if (!live.contains(m)) {
                orphans.remove(m); // ended or empty: nothing to take back
                continue;
            }
            try {
                Route r = ownership.route(m);
                orphans.remove(m);
                reclaimed.increment();
                if (r instanceof Route.Local local) {
                    LOG.info("took meeting {} back after losing the lease (epoch {})", m, local.epoch());
                } else {
                    LOG.info("meeting {} is owned by another pod since this pod lost its lease", m);
                }
            } catch (ApiException ex) {
                if (ex.status() == 404) {
                    orphans.remove(m);
                }
                // etcd or PostgreSQL unavailable, ownership changing: next round
            }
        }
    }

    private Set<UUID> liveWithParticipants(Set<UUID> ids) {
        return new HashSet<>(MeetingIdQuery.select(db, "SELECT meeting_id FROM meetings "
                + "WHERE meeting_id = ANY(?) AND status = 'live' AND active_participants > 0", ids));
    }

    @PreDestroy
    void stop() {
        exec.shutdownNow();
    }
}
