package dev.parley.controller.signaling;

import dev.parley.controller.interest.InterestService;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.media.GrantService;
import dev.parley.controller.ownership.Ownership;
import dev.parley.controller.participant.ParticipantService;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The owner's side of presence: which pods have a live socket of which participant, and the reconnect grace (a
 * participant with no socket left on any pod is {@code reconnecting}, then marked left unless a socket comes back).
 */
@Singleton
public final class OwnerPresence {
    private static final Logger LOG = LoggerFactory.getLogger(OwnerPresence.class);

    private final Ownership ownership;
    private final SessionRegistry registry;
    private final ParticipantService participants;
    private final GrantService grants;
    private final InterestService interest;
    private final ParleyConfig cfg;
    private final ExecutorService workers;
    private final ScheduledExecutorService timers;
    /** (meeting, participant) → pending "left after grace" task. */
    private final Map<String, ScheduledFuture<?>> graceTimers = new ConcurrentHashMap<>();

    public OwnerPresence(Ownership ownership, SessionRegistry registry, ParticipantService participants,
                         GrantService grants, ParleyConfig cfg, SignalingExecutors executors, InterestService interest) {
        this.ownership = ownership;
        this.registry = registry;
        this.participants = participants;
        this.grants = grants;
        this.interest = interest;
        this.cfg = cfg;
        this.workers = executors.workers;
        this.timers = executors.timers;
    }

    /**
     * The owner's side of a non-owner's presence notice: which pods have a live socket of which participant
     * ({@code open} adds the pod and cancels the reconnect grace; {@code closed}, the pod's last socket of the
     * participant, removes it and starts the grace when no socket is left on any pod; {@code left} is the
     * participant's leave). {@code podUrl} null: the notice is from this pod (it has become the owner). False when
     * this pod does not own the meeting.
     */
    boolean presence(UUID m, UUID p, long gen, Presence what, String podUrl) {
        Long epoch = ownership.epochIfOwned(m);
        if (epoch == null) {
            return false;
        }
        String other = podUrl == null || podUrl.equals(cfg.publicUrl()) ? null : podUrl;
        switch (what) {
            case OPEN -> {
                if (other != null) {
                    registry.remoteOpened(m, other, p); // volatile hints now follow to that pod too
                }
                cancelGrace(m, p);
            }
            case CLOSED -> {
                if (other != null) {
                    registry.remoteClosed(m, other, p);
                }
                if (!registry.hasOtherSocket(m, p, null) && !registry.hasRemoteSocket(m, p)) {
                    startGrace(m, p, gen, epoch);
                }
            }
            case LEFT -> {
                registry.remoteClosed(m, null, p);
                registry.publish(m, participants.leave(m, epoch, p, -1, "left"));
                grants.refresh(m);
                interest.gone(m, p);
            }
        }
        return true;
    }

    /** The participant is reconnecting: marked left after the grace unless a socket of it comes back. */
    void startGrace(UUID m, UUID p, long gen, long epoch) {
        registry.volatileMessage(m, "participant_reconnecting", p.toString());
        interest.gone(m, p); // no socket left anywhere: out of everyone's area of interest until it sends a position
        // idempotent ghost cleanup: only the same generation, only if still active, only once
        graceTimers.compute(m + "/" + p, (k, old) -> {
            if (old != null) {
                old.cancel(false);
            }
            return timers.schedule(() -> workers.execute(() -> {
                graceTimers.remove(k);
                try {
                    registry.publish(m, participants.leave(m, epoch, p, gen, "reconnect_timeout"));
                    grants.refresh(m);
                } catch (RuntimeException e) {
                    LOG.debug("grace expiry for {} skipped: {}", p, e.toString());
                }
            }), cfg.reconnectGraceMillis(), TimeUnit.MILLISECONDS);
        });
    }

    /** A socket of the participant is back (joined here or announced by another pod). */
    void cancelGrace(UUID m, UUID p) {
        ScheduledFuture<?> grace = graceTimers.remove(m + "/" + p);
        if (grace != null) {
            grace.cancel(false);
        }
    }
}
