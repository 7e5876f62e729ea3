package dev.parley.controller.recording;

import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.db.Db;
import dev.parley.controller.media.LeaseGate;
import dev.parley.controller.media.SfuClient;
import dev.parley.controller.media.SfuSelector;
import dev.parley.controller.ownership.Ownership;
import dev.parley.platform.etcd.ProcessLease;
import dev.parley.platform.etcd.SfuEntry;
import dev.parley.platform.grant.Grant;
import dev.parley.platform.grant.PublishRights;
import dev.parley.platform.grant.PutGrantsRequest;
import io.micronaut.context.annotation.Context;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Subscribe-only grants of recorder participants ({@code recorder:{job}:{generation}}) at the SFUs, renewed like
 * every participant's (ttl ≤ 3 s, never beyond what our lease vouches for) while the job is recording in the
 * generation that subscribed and we own the meeting in the epoch that granted. Anything else — stop requested,
 * finalizing or done, a newer generation, ownership lost — revokes at once (a higher version with no rights)
 * and removes the participant from the SFU, so the SFU stops forwarding to that recorder.
 */
@Context
@Singleton
public final class RecorderGrants {
    private static final Logger LOG = LoggerFactory.getLogger(RecorderGrants.class);
    /** After a move to another SFU the old one keeps the grant this long (make-before-break overlap). */
    static final long OLD_SFU_GRACE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Db db;
    private final Ownership ownership;
    private final ProcessLease lease;
    private final SfuClient sfus;
    private final SfuSelector selector;
    private final Map<UUID, RecorderLeg> legs = new ConcurrentHashMap<>();
    private final ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "recorder-grants");
        t.setDaemon(true);
        return t;
    });

    /** One recorder generation's presence at the SFUs. */
    static final class RecorderLeg {
        final UUID jobId;
        final UUID meetingId;
        final long generation;
        final long epoch;
        final String participantId;
        final AtomicLong version = new AtomicLong();
        volatile String sfuPod;
        volatile String oldSfuPod;
        volatile long oldSfuUntilNanos;

        RecorderLeg(UUID jobId, UUID meetingId, long generation, long epoch, String sfuPod) {
            this.jobId = jobId;
            this.meetingId = meetingId;
            this.generation = generation;
            this.epoch = epoch;
            this.participantId = participantId(jobId, generation);
            this.sfuPod = sfuPod;
        }
    }

    public RecorderGrants(Db db, Ownership ownership, ProcessLease lease, SfuClient sfus, SfuSelector selector,
                          ParleyConfig cfg) {
        this.db = db;
        this.ownership = ownership;
        this.lease = lease;
        this.sfus = sfus;
        this.selector = selector;
        exec.scheduleWithFixedDelay(this::renewAll, cfg.grantRenewMillis(), cfg.grantRenewMillis(), TimeUnit.MILLISECONDS);
    }

    /** The hidden participant id of a recorder generation: never a UUID, so never a roster member. */
    public static String participantId(UUID jobId, long generation) {
        return "recorder:" + jobId + ":" + generation;
    }

    /** Grant ttl for now: ≤ 3 s and ending before our lease could expire; 0 = don't grant. */
    long ttlNow() {
        return LeaseGate.ttlNow(lease);
    }

    /**
     * The grant to send with a new transport of this recorder on {@code sfuPod}; registers it for renewal (a
     * move to another SFU keeps the old one granted for the overlap). Null when the lease is in doubt.
     */
    Grant grantFor(UUID jobId, UUID meetingId, long generation, long epoch, String sfuPod) {
        long ttl = ttlNow();
        if (ttl <= 0) {
            return null;
        }
        RecorderLeg leg = legs.compute(jobId, (k, old) -> {
            if (old == null || old.generation != generation || old.epoch != epoch) {
                if (old != null) {
                    revoke(old);
                }
                return new RecorderLeg(jobId, meetingId, generation, epoch, sfuPod);
            }
            if (!sfuPod.equals(old.sfuPod)) {
                old.oldSfuPod = old.sfuPod;
                old.oldSfuUntilNanos = System.nanoTime() + OLD_SFU_GRACE_NANOS;
                old.sfuPod = sfuPod;
            }
            return old;
        });
        return new Grant(leg.participantId, leg.version.incrementAndGet(), epoch, PublishRights.NONE, true, ttl);
    }

    /** Whether a recorder of this job is currently granted (tests, state). */
    public boolean isGranted(UUID jobId) {
        return legs.containsKey(jobId);
    }

    /**
     * Whether the SFU this job's recorder uses is draining or gone: the recorder should re-subscribe (a higher
     * transport generation lands on a usable SFU) before that SFU leaves.
     */
    public boolean shouldMove(UUID jobId) {
        RecorderLeg leg = legs.get(jobId);
        return leg != null && !selector.isUsable(leg.sfuPod);
    }

    /** Re-checks one job now (after a stop or a state report) instead of at the next renewal. */
    public void recheck(UUID jobId) {
        RecorderLeg leg = legs.get(jobId);
        if (leg != null) {
            exec.execute(() -> renew(leg));
        }
    }

    private void renewAll() {
        for (RecorderLeg leg : new ArrayList<>(legs.values())) {
            try {
                renew(leg);
            } catch (RuntimeException e) {
                LOG.warn("recorder grant renewal for job {} failed: {}", leg.jobId, e.toString());
            }
        }
    }

    private void renew(RecorderLeg leg) {
        if (!stillRecording(leg)) {
            legs.remove(leg.jobId, leg);
            revoke(leg);
            return;
        }
        long ttl = ttlNow();
        if (ttl <= 0) {
            return; // lease in doubt: let the grant run out
        }
        push(leg, leg.sfuPod, new Grant(leg.participantId, leg.version.incrementAndGet(), leg.epoch,
                PublishRights.NONE, true, ttl));
        String old = leg.oldSfuPod;
        if (old != null && System.nanoTime() - leg.oldSfuUntilNanos < 0) {
            push(leg, old, new Grant(leg.participantId, leg.version.get(), leg.epoch, PublishRights.NONE, true, ttl));
        } else if (old != null) {
            leg.oldSfuPod = null;
            retire(leg, old);
        }
    }

    private boolean stillRecording(RecorderLeg leg) {
        Long epoch = ownership.epochIfOwned(leg.meetingId);
        if (epoch == null || epoch != leg.epoch) {
            return false;
        }
        return db.readSnapshot(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT state, generation, stop_requested FROM recording_jobs "
                    + "WHERE job_id = ?")) {
                ps.setObject(1, leg.jobId);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() && RecordingStates.isActive(rs.getString(1)) && !rs.getBoolean(3)
                            && rs.getLong(2) <= leg.generation;
                }
            }
        });
    }

    private void revoke(RecorderLeg leg) {
        LOG.info("revoking recorder {} of meeting {}", leg.participantId, leg.meetingId);
        retire(leg, leg.sfuPod);
        if (leg.oldSfuPod != null) {
            retire(leg, leg.oldSfuPod);
        }
    }

    /** A revoked grant (higher version, no rights), then the participant leaves that SFU. */
    private void retire(RecorderLeg leg, String pod) {
        SfuEntry sfu = selector.get(pod).orElse(null);
        if (sfu == null) {
            return; // gone: its grants expire on their own
        }
        Grant g = Grant.revoked(leg.participantId, leg.version.incrementAndGet(), leg.epoch, Grant.MAX_TTL_MS);
        sfus.putGrants(sfu.internalUrl(), new PutGrantsRequest(leg.meetingId.toString(), leg.epoch, List.of(g)))
                .thenRun(() -> sfus.removeParticipant(sfu.internalUrl(), leg.meetingId.toString(), leg.participantId,
                        leg.epoch));
    }

    private void push(RecorderLeg leg, String pod, Grant g) {
        SfuEntry sfu = selector.get(pod).orElse(null);
        if (sfu == null) {
            return;
        }
        sfus.putGrants(sfu.internalUrl(), new PutGrantsRequest(leg.meetingId.toString(), leg.epoch, List.of(g)))
                .thenAccept(r -> {
                    if (!r.ok()) {
                        LOG.debug("recorder grant push to {} failed: {} {}", pod, r.status(), r.error());
                    }
                });
    }

    @PreDestroy
    void stop() {
        exec.shutdownNow();
    }
}
