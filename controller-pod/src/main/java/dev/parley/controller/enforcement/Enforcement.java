package dev.parley.controller.enforcement;

import dev.parley.controller.control.ControlEvent;
import dev.parley.controller.control.SessionHub;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The one owner of {@code committed → applied} bookkeeping: which commands of the meetings we own still wait for
 * their SFUs, and the write of {@code applied} once they do not. The grant side reports to it ({@link #check}
 * after acknowledgements and every renewal round); it never talks to an SFU itself.
 */
@Singleton
public final class Enforcement {
    private static final Logger LOG = LoggerFactory.getLogger(Enforcement.class);
    /**
     * Writers of {@code applied} (a transaction each), striped by meeting so one meeting's commands are marked
     * in order. They run off the thread that handles an SFU's answer: that thread is the SFU's only push lane,
     * and a database write there held back the next push (a revocation behind other commands' bookkeeping).
     */
    static final int APPLIED_WRITERS = 2;

    private record Pending(UUID commandId, Map<UUID, Long> targets, long committedNanos, boolean endsMeeting) {
    }

    /** One owned meeting's pending commands, at the epoch we own it with. */
    private static final class Tracked {
        final long epoch;
        final List<Pending> pending = new CopyOnWriteArrayList<>();

        Tracked(long epoch) {
            this.epoch = epoch;
        }
    }

    private final AppliedLedger ledger;
    private final SessionHub sessions;
    private final Timer enforcementLag;
    private final Map<UUID, Tracked> meetings = new ConcurrentHashMap<>();
    private final ExecutorService[] appliedWriters = new ExecutorService[APPLIED_WRITERS];
    /** Commands whose enforcement is done and whose {@code applied} write is queued or running. */
    private final Set<UUID> marking = ConcurrentHashMap.newKeySet();

    public Enforcement(AppliedLedger ledger, SessionHub sessions, MeterRegistry meters) {
        this.ledger = ledger;
        this.sessions = sessions;
        this.enforcementLag = Timer.builder("parley_authorization_enforcement_lag")
                .description("commit of a permission change until every SFU enforces it (applied)")
                .publishPercentiles(0.5, 0.99).register(meters);
        for (int i = 0; i < APPLIED_WRITERS; i++) {
            String name = "grant-applied-" + i;
            appliedWriters[i] = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                return t;
            });
        }
    }

    /** We own the meeting at this epoch now: nothing tracked yet (what an old owner left comes by {@link #inherit}). */
    public void acquired(UUID meetingId, long epoch) {
        meetings.put(meetingId, new Tracked(epoch));
    }

    /** We no longer own the meeting: its commands are the next owner's to finish. */
    public void lost(UUID meetingId) {
        meetings.remove(meetingId);
    }

    /** A command a previous owner left pending: applied once these participant versions are enforced. */
    public void inherit(UUID meetingId, UUID commandId, boolean endsMeeting, Map<UUID, Long> targets) {
        Tracked t = meetings.get(meetingId);
        if (t != null) {
            t.pending.add(new Pending(commandId, targets, System.nanoTime(), endsMeeting));
        }
    }

    /** After a commit: tracks the command until its SFUs enforce it (only when it is pending). */
    public void track(UUID meetingId, CommittedChange cmd) {
        Tracked t = meetings.get(meetingId);
        if (t != null && cmd.pending()) {
            t.pending.add(new Pending(cmd.commandId(), Map.copyOf(cmd.grantTargets()), System.nanoTime(),
                    cmd.endsMeeting()));
        }
    }

    /**
     * Hands every command the view now shows enforced to an {@code applied} writer. The view is of the meeting at
     * {@code epoch}; a view of an epoch we no longer track (ownership changed meanwhile) decides nothing.
     */
    public void check(UUID meetingId, long epoch, EnforcementView view) {
        Tracked tracked = meetings.get(meetingId);
        if (tracked == null || tracked.epoch != epoch) {
            return;
        }
        long now = System.nanoTime();
        for (Pending p : tracked.pending) {
            boolean done = true;
            for (Map.Entry<UUID, Long> t : p.targets().entrySet()) {
                if (!view.enforced(t.getKey(), t.getValue(), now)) {
                    done = false;
                    break;
                }
            }
            if (done && tracked.pending.remove(p)) {
                marking.add(p.commandId());
                long lagNanos = now - p.committedNanos();
                try {
                    appliedWriters[Math.floorMod(meetingId.hashCode(), APPLIED_WRITERS)]
                            .execute(() -> writeApplied(meetingId, tracked, p, lagNanos));
                } catch (RejectedExecutionException e) {
                    marking.remove(p.commandId()); // shutting down: the next owner finds it pending
                }
            }
        }
    }

    /**
     * Records {@code applied} for a command every SFU now enforces; on failure it goes back to pending and the
     * next acknowledgement (at the latest the next renewal) tries again. The lag is the time to enforcement,
     * measured when the last acknowledgement arrived, and counted once the write succeeded.
     */
    private void writeApplied(UUID meetingId, Tracked tracked, Pending p, long lagNanos) {
        try {
            List<ControlEvent> events = ledger.markApplied(meetingId, tracked.epoch, p.commandId(), p.endsMeeting());
            enforcementLag.record(lagNanos, TimeUnit.NANOSECONDS);
            sessions.publish(meetingId, events);
            if (p.endsMeeting()) {
                sessions.closeMeeting(meetingId);
            }
        } catch (RuntimeException e) {
            LOG.warn("marking command {} applied failed: {}", p.commandId(), e.toString());
            tracked.pending.add(p); // before leaving `marking`: isPending never sees a gap
        } finally {
            marking.remove(p.commandId());
        }
    }

    /** Whether a command is still pending here (for tests and the API). */
    public boolean isPending(UUID meetingId, UUID commandId) {
        Tracked t = meetings.get(meetingId);
        return marking.contains(commandId)
                || (t != null && t.pending.stream().anyMatch(p -> p.commandId().equals(commandId)));
    }

    @PreDestroy
    void stop() {
        for (ExecutorService w : appliedWriters) {
            w.shutdown(); // queued applied writes still run; what remains is found pending by the next owner
        }
    }
}
