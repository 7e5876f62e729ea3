package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.ownership.Ownership;
import dev.parley.controller.ownership.Route;
import dev.parley.controller.peer.PodLink;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A non-owner's presence notices to the meeting's owner about its sockets (open, closed = the participant's last
 * socket here, left), in order per (meeting, participant): one serial lane per stripe; the decision "last socket of
 * the participant here" and the enqueueing happen under the stripe's lock.
 */
@Singleton
public final class PresenceNotices {
    private static final Logger LOG = LoggerFactory.getLogger(PresenceNotices.class);
    private static final int STRIPES = 64;

    private final SerialExecutor[] lanes = new SerialExecutor[STRIPES];
    private final Object[] locks = new Object[STRIPES];
    private final Ownership ownership;
    private final PodLink link;
    private final ParleyConfig cfg;
    private final SessionRegistry registry;
    private final OwnerPresence owner;

    public PresenceNotices(Ownership ownership, PodLink link, ParleyConfig cfg, SessionRegistry registry,
                           OwnerPresence owner, SignalingExecutors executors) {
        for (int i = 0; i < STRIPES; i++) {
            lanes[i] = new SerialExecutor(executors.workers);
            locks[i] = new Object();
        }
        this.ownership = ownership;
        this.link = link;
        this.cfg = cfg;
        this.registry = registry;
        this.owner = owner;
    }

    /** A socket of the participant joined here: the owner runs the reconnect grace and must know of it. */
    void opened(UUID m, UUID p, long gen) {
        int stripe = stripe(m, p);
        synchronized (locks[stripe]) {
            lanes[stripe].execute(() -> toOwner(m, p, gen, Presence.OPEN));
        }
    }

    /** Socket {@code c} closed: the owner hears "closed" when it was the participant's last socket on this pod. */
    void closed(Conn c) {
        UUID m = c.meetingId;
        UUID p = c.participantId;
        long gen = c.generation;
        int stripe = stripe(m, p);
        synchronized (locks[stripe]) {
            if (!registry.hasOtherSocket(m, p, c)) {
                lanes[stripe].execute(() -> toOwner(m, p, gen, Presence.CLOSED));
            }
        }
    }

    /**
     * The participant left: in order after its earlier notices; returns once the owner recorded it (or gave up),
     * waiting at most 15 s.
     */
    void left(UUID m, UUID p, long gen) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        lanes[stripe(m, p)].execute(() -> {
            try {
                toOwner(m, p, gen, Presence.LEFT);
            } finally {
                done.complete(null);
            }
        });
        try {
            done.get(15, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.debug("leave of {} not confirmed by the owner in time: {}", p, e.toString());
        }
    }

    private static int stripe(UUID m, UUID p) {
        return Math.floorMod(m.hashCode() * 31 + p.hashCode(), STRIPES);
    }

    /**
     * Sends a presence notice to the meeting's owner (this pod itself when it owns the meeting now), retried a
     * few times while ownership moves. Runs on the participant's lane, so its notices arrive in order.
     */
    private void toOwner(UUID m, UUID p, long gen, Presence what) {
        ObjectNode body = JsonBody.obj();
        body.put("meeting_id", m.toString());
        body.put("participant_id", p.toString());
        body.put("transport_generation", gen);
        body.put("presence", what.wire());
        body.put("pod_url", cfg.publicUrl());
        for (int attempt = 1; attempt <= 3; attempt++) {
            try {
                Route r = ownership.route(m);
                if (r instanceof Route.Local) {
                    if (owner.presence(m, p, gen, what, null)) {
                        return;
                    }
                } else {
                    int status = link.post(((Route.Remote) r).owner().internalUrl(), PresenceController.PATH,
                            body.toString(), Duration.ofSeconds(5));
                    if (status / 100 == 2) {
                        return;
                    }
                }
            } catch (RuntimeException e) {
                LOG.debug("presence {} for {} not delivered yet: {}", what, p, e.toString());
            }
            try {
                Thread.sleep(300L * attempt);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        LOG.warn("presence {} of participant {} could not reach the owner of meeting {}", what.wire(), p, m);
    }
}
