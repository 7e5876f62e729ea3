package dev.parley.controller.roster;

import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.db.Db;
import dev.parley.controller.ownership.LeaderKey;
import dev.parley.platform.etcd.EtcdKeys;
import dev.parley.platform.etcd.ProcessLease;
import io.etcd.jetcd.Client;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Builds the roster read model ({@code roster_entries}, migration V6) from the committed participant events of
 * {@code outbox_events} — the stream the outbox relay publishes, kept in full (control events are trimmed, the outbox
 * is not), and whose participant events carry the whole public participant document
 * ({@code ParticipantService.participantJson}: id, display name, role, admission state, version, publish flags).
 * {@code meeting.ending} (ending a meeting sets every active participant to {@code left} without a participant event
 * each) is applied as that same change to the meeting's active entries. This class decides when and where that runs
 * and in which transactions; {@link RosterProjection} does a catch-up, {@link RosterChange} says what an event
 * changes, {@link RosterStore} holds the SQL.
 *
 * <p><b>Order.</b> A meeting's roster events are all written under its meeting row lock, so within a meeting their
 * {@code position} order is their commit order and whatever a statement sees of them is a prefix: the projector reads
 * them by position after the meeting's checkpoint. (Across meetings positions are not in commit order; nothing here
 * relies on a global position.)
 *
 * <p><b>Idempotence.</b> Each entry remembers the position of the last event applied to it and an event is applied
 * only to entries below its position (conditional upsert), so applying an event twice, or an older one after a newer
 * one, changes nothing; the checkpoint only moves forward. A meeting's catch-up runs in one transaction holding a
 * per-meeting advisory lock, so two projectors (two pods during a leader change, a rebuild and the background loop)
 * never interleave on one meeting.
 *
 * <p><b>Where it runs.</b> On the leader only ({@code /parley/v1/roster-projector/leader} under this process's lease,
 * as the outbox relay does): one poller per cluster instead of one scan of the meetings per pod every
 * {@value #POLL_MILLIS} ms. Safety does not depend on it (lock + conditional writes); a leader that dies is replaced
 * when its lease expires and the new one continues from the checkpoints.
 *
 * <p><b>Never authorization.</b> Nothing reads these tables to decide access; only the roster page reads them.
 */
@Context
@Singleton
public final class RosterProjector {
    private static final Logger LOG = LoggerFactory.getLogger(RosterProjector.class);
    static final String LEADER_KEY = EtcdKeys.ROOT + "/roster-projector/leader";
    static final long POLL_MILLIS = 150;
    /** Events read per statement (a background round reads one such batch; a full catch-up loops). */
    static final int EVENTS_PER_ROUND = 2000;
    /** How often a round looks at every meeting instead of only those with pending outbox rows. */
    static final long FULL_SCAN_MILLIS = 3000;

    private final Db db;
    private final RosterStore store;
    private final RosterProjection projection;
    private final LeaderKey leaderKey;
    private final ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "roster-projector");
        t.setDaemon(true);
        return t;
    });
    /** {@link #EVENTS_PER_ROUND}; lower in tests to exercise rounds cut short. */
    private volatile int eventsPerRound = EVENTS_PER_ROUND;
    /** Tests: the background loop stands still (catch-ups on read, rebuilds and explicit calls still run). */
    private volatile boolean paused;
    private volatile long leaderCheckedAt;
    private volatile boolean leader;
    /** When the background loop last looked at every meeting (0: not yet). */
    private long fullScanAt;
    /**
     * Meetings the last round left behind: cut short by the per-round limit, or locked by another projector. The
     * next round takes them again; otherwise, once the relay has published their events, only the next full scan
     * (up to {@link #FULL_SCAN_MILLIS} later) would find them.
     */
    private final Set<UUID> revisit = ConcurrentHashMap.newKeySet();

    public RosterProjector(Db db, ParleyConfig cfg, Client etcd, ProcessLease lease, MeterRegistry meters) {
        this.db = db;
        this.store = new RosterStore(db);
        this.leaderKey = new LeaderKey(etcd, lease, LEADER_KEY, cfg.podName());
        this.projection = new RosterProjection(
                Counter.builder("parley_roster_projection_events_applied")
                        .description("roster events applied to the read model (re-applied duplicates included)")
                        .register(meters),
                Counter.builder("parley_roster_projection_events_skipped")
                        .description("roster events without a readable participant document (logged, not applied)")
                        .register(meters));
        Gauge.builder("parley_roster_projection_lag", store, RosterStore::lag)
                .description("control events committed but not yet examined by the roster projection (all meetings)")
                .baseUnit("events").register(meters);
        exec.scheduleWithFixedDelay(this::round, POLL_MILLIS, POLL_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Leader of the projection: checked against etcd at most once a second (a stale answer is safe, see above). */
    private boolean leader() {
        long now = System.nanoTime();
        if (now - leaderCheckedAt < 1_000_000_000L && leaderCheckedAt != 0) {
            return leader;
        }
        leader = leaderKey.held();
        leaderCheckedAt = now;
        return leader;
    }

    void round() {
        try {
            if (!paused && leader()) {
                long now = System.nanoTime();
                boolean full = fullScanAt == 0 || now - fullScanAt >= FULL_SCAN_MILLIS * 1_000_000L;
                List<UUID> candidates = store.behind(full);
                if (!revisit.isEmpty()) {
                    Set<UUID> all = new LinkedHashSet<>(candidates);
                    all.addAll(revisit);
                    candidates = new ArrayList<>(all);
                    revisit.clear();
                }
                catchUpMeetings(candidates, false);
                if (full) {
                    fullScanAt = now;
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("roster projection round failed: {}", e.toString());
        }
    }

    /** {@link #catchUpMeetings} of every meeting that is behind (a full scan); returns the number of events applied. */
    public int catchUpAll(boolean wait) {
        return catchUpMeetings(store.behind(true), wait);
    }

    /**
     * Catches {@code behind} up; returns the number of events applied. The background round does them together: ONE
     * transaction takes the advisory locks it can get (a meeting another projector holds waits for the next round),
     * reads their cursors, their events (at most {@value #EVENTS_PER_ROUND}) and writes entries and checkpoints — a
     * handful of round trips per round, however many meetings moved. {@code wait} (tests): one transaction per
     * meeting, waiting for each meeting's lock, until every one is complete.
     */
    private int catchUpMeetings(List<UUID> behind, boolean wait) {
        if (behind.isEmpty()) {
            return 0;
        }
        if (wait) {
            int n = 0;
            for (UUID m : behind) {
                n += catchUp(m, true);
            }
            return n;
        }
        Set<UUID> leftBehind = new HashSet<>();
        int n = db.tx(c -> {
            leftBehind.clear(); // a retried transaction starts over
            List<UUID> locked = RosterStore.tryLock(c, behind);
            leftBehind.addAll(behind);
            leftBehind.removeAll(locked); // another projector holds these now
            return projection.project(c, locked, false, eventsPerRound, leftBehind);
        });
        revisit.addAll(leftBehind);
        return n;
    }

    /**
     * Applies a meeting's roster events after its checkpoint, all of them, in one transaction under the meeting's
     * advisory lock. Returns the number of events applied, or -1 when {@code wait} is false and another projector
     * holds the lock.
     */
    public int catchUp(UUID meetingId, boolean wait) {
        return db.tx(c -> {
            if (!RosterStore.lock(c, meetingId, wait)) {
                return -1;
            }
            return projection.project(c, List.of(meetingId), true, eventsPerRound, null);
        });
    }

    /**
     * Full rebuild of one meeting: its entries and checkpoint are deleted and every retained roster event is applied
     * again, in one transaction (readers see the old page until it commits). Returns the number of events applied.
     */
    public int rebuild(UUID meetingId) {
        return db.tx(c -> {
            RosterStore.lock(c, meetingId, true);
            RosterStore.forget(c, meetingId);
            return projection.project(c, List.of(meetingId), true, eventsPerRound, null);
        });
    }

    /** Result of {@link #rebuildAll}. */
    public record Rebuilt(int meetings, long events) {
    }

    /** {@link #rebuild} of every meeting (one transaction per meeting), including entries whose meeting is gone. */
    public Rebuilt rebuildAll() {
        List<UUID> all = store.allMeetings();
        long events = 0;
        for (UUID m : all) {
            events += rebuild(m);
        }
        return new Rebuilt(all.size(), events);
    }

    /** Stops or restarts the background loop (tests). */
    void pause(boolean pause) {
        paused = pause;
    }

    /** Events read per statement from now on (tests: small values cut rounds short). */
    void eventsPerRound(int n) {
        eventsPerRound = n;
    }

    @PreDestroy
    void stop() {
        exec.shutdownNow();
    }
}
