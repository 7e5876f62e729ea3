package dev.parley.controller.media;

import dev.parley.controller.control.SessionHub;
import dev.parley.controller.enforcement.Enforcement;
import dev.parley.controller.media.GrantLedger.MeetingGrants;
import dev.parley.controller.ownership.Ownership;
import dev.parley.platform.etcd.SfuEntry;
import dev.parley.platform.grant.Grant;
import dev.parley.platform.grant.GrantAck;
import dev.parley.platform.grant.PutGrantBatchRequest;
import dev.parley.platform.grant.PutGrantsRequest;
import dev.parley.platform.internal.InternalError;
import dev.parley.platform.internal.PutGrantBatchResponse;
import io.micrometer.core.instrument.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Sends grants to the SFUs and takes their answers: pushes after a commit or a transport go through
 * {@link PushLanes} (one request in flight per SFU); acknowledgements go into the {@link GrantLedger} and are
 * reported to {@link Enforcement}; a refused epoch drops the meeting. The renewer sends through here too.
 */
final class GrantPusher {
    private static final Logger LOG = LoggerFactory.getLogger(GrantPusher.class);

    private final GrantLedger ledger;
    private final LeaseGate gate;
    private final OldSfuFallback fallback;
    private final SfuClient sfus;
    private final SfuSelector selector;
    private final SessionHub sessions;
    private final Ownership ownership;
    private final Enforcement enforcement;
    private final Counter released;
    /** At most one push request in flight per SFU; what comes meanwhile goes together in the next one. */
    private final PushLanes lanes = new PushLanes(this::sendNow);

    GrantPusher(GrantLedger ledger, LeaseGate gate, OldSfuFallback fallback, SfuClient sfus, SfuSelector selector,
                SessionHub sessions, Ownership ownership, Enforcement enforcement, Counter released) {
        this.ledger = ledger;
        this.gate = gate;
        this.fallback = fallback;
        this.sfus = sfus;
        this.selector = selector;
        this.sessions = sessions;
        this.ownership = ownership;
        this.enforcement = enforcement;
        this.released = released;
    }

    /**
     * Pushes the meeting's grants to its SFUs now (after a commit or a transport), through {@link PushLanes}:
     * under load several meetings' pushes to one SFU share a request (a batch); when idle nothing waits.
     */
    void pushSoon(UUID meetingId, MeetingGrants g) {
        for (String pod : g.pods()) {
            lanes.mark(pod, meetingId);
        }
    }

    /** The current grants of these meetings at one SFU: one meeting → {@code PUT /grants}, several → one batch. */
    private CompletableFuture<Void> sendNow(String pod, List<UUID> ids) {
        long ttl = gate.ttlNow();
        if (ttl <= 0) {
            return CompletableFuture.completedFuture(null); // lease in doubt: let every grant run out
        }
        SfuEntry sfu = selector.get(pod).orElse(null);
        if (sfu == null) {
            for (UUID id : ids) {
                sessions.volatileMessage(id, "media_server_lost", pod);
            }
            return CompletableFuture.completedFuture(null); // SFU gone: its grants expire on their own
        }
        if (ids.size() == 1 || fallback.batchUnsupported(pod)) {
            List<CompletableFuture<Void>> sent = new ArrayList<>();
            for (UUID id : ids) {
                MeetingGrants g = ledger.get(id);
                if (g != null) {
                    sent.add(push(id, g, pod));
                }
            }
            return CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0]));
        }
        long expiry = LeaseGate.expiryFor(ttl);
        List<Outgoing> out = new ArrayList<>();
        for (UUID id : ids) {
            MeetingGrants g = ledger.get(id);
            List<Grant> grants = g == null ? null : GrantLedger.collect(g, ttl, expiry, pod).get(pod);
            if (grants != null) {
                out.add(new Outgoing(id, g, grants));
            }
        }
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        for (List<Outgoing> chunk : Outgoing.chunks(out)) {
            sent.add(sendBatch(sfu, chunk));
        }
        return CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0]));
    }

    /** One meeting's grants, one {@code PUT /grants} per SFU (only {@code onlySfu} when not null). */
    CompletableFuture<Void> push(UUID meetingId, MeetingGrants g, String onlySfu) {
        long ttl = gate.ttlNow();
        if (ttl <= 0) {
            return CompletableFuture.completedFuture(null); // lease in doubt: let every grant run out
        }
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        long expiry = LeaseGate.expiryFor(ttl);
        for (Map.Entry<String, List<Grant>> e : GrantLedger.collect(g, ttl, expiry, onlySfu).entrySet()) {
            SfuEntry sfu = selector.get(e.getKey()).orElse(null);
            if (sfu == null) {
                sessions.volatileMessage(meetingId, "media_server_lost", e.getKey());
                continue; // SFU gone: its grants expire on their own
            }
            PutGrantsRequest req = new PutGrantsRequest(meetingId.toString(), g.epoch, e.getValue());
            sent.add(sfus.putGrants(sfu.internalUrl(), req).thenAccept(res -> {
                if (res.ok()) {
                    selector.markReachable(sfu.pod());
                    onAcks(meetingId, g, sfu, res.body().acks());
                } else {
                    if (res.refused()) {
                        selector.markUnreachable(sfu.pod());
                    }
                    onNotApplied(meetingId, g, sfu, res.error(), res.refused());
                }
            }));
        }
        return CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0]));
    }

    /** Several meetings' grants (already collected, expiry recorded) in ONE batch request to this SFU. */
    CompletableFuture<Void> sendBatch(SfuEntry sfu, List<Outgoing> chunk) {
        List<PutGrantsRequest> entries = new ArrayList<>(chunk.size());
        for (Outgoing o : chunk) {
            entries.add(new PutGrantsRequest(o.meetingId().toString(), o.g().epoch, o.grants()));
        }
        return sfus.putGrantBatch(sfu.internalUrl(), new PutGrantBatchRequest(entries)).thenAccept(res -> {
            if (res.ok() && res.body().meetings() != null) {
                selector.markReachable(sfu.pod());
                Map<String, PutGrantBatchResponse.MeetingResult> results = new HashMap<>();
                for (PutGrantBatchResponse.MeetingResult r : res.body().meetings()) {
                    results.put(r.meetingId(), r);
                }
                for (Outgoing o : chunk) {
                    PutGrantBatchResponse.MeetingResult r = results.get(o.meetingId().toString());
                    if (r == null) {
                        continue; // not answered: the grant runs out unless the next round renews it
                    }
                    if (r.error() == null) {
                        onAcks(o.meetingId(), o.g(), sfu, r.acks());
                    } else {
                        onNotApplied(o.meetingId(), o.g(), sfu, r.error(), false);
                    }
                }
            } else if (res.status() == 404) {
                // an SFU without the batch path (older version during a rolling upgrade): one request per meeting
                fallback.batchNotFound(sfu.pod());
                LOG.info("SFU {} has no grant batch endpoint; renewing its grants one meeting at a time", sfu.pod());
                for (Outgoing o : chunk) {
                    push(o.meetingId(), o.g(), sfu.pod());
                }
            } else {
                if (res.refused()) {
                    selector.markUnreachable(sfu.pod());
                }
                for (Outgoing o : chunk) {
                    onNotApplied(o.meetingId(), o.g(), sfu, res.error(), res.refused());
                }
            }
        });
    }

    /** A push (or a batch entry) the SFU did not apply: what that means for the meeting. */
    private void onNotApplied(UUID meetingId, MeetingGrants g, SfuEntry sfu, InternalError error, boolean refused) {
        if (refused) {
            // the SFU process is gone: move its participants now, not when its lease runs out
            sessions.volatileMessage(meetingId, "media_server_lost", sfu.pod());
        } else if (error != null && InternalError.STALE_EPOCH.equals(error.code())) {
            LOG.warn("SFU {} refused epoch {} of meeting {}: a newer owner exists", sfu.pod(), g.epoch, meetingId);
            ownership.lost(meetingId, g.epoch);
        } else {
            LOG.debug("grant push to {} failed: {}", sfu.pod(), error);
        }
    }

    private void onAcks(UUID meetingId, MeetingGrants g, SfuEntry sfu, List<GrantAck> acks) {
        if (acks == null) {
            return;
        }
        for (GrantAck a : acks) {
            UUID pid;
            try {
                pid = UUID.fromString(a.participantId());
            } catch (RuntimeException e) {
                continue;
            }
            GrantLedger.AckFollowUp next = GrantLedger.acknowledged(g, sfu.pod(), pid, a.version());
            if (next == null) {
                continue;
            }
            if (next.removeAtSfu()) {
                sfus.removeParticipant(sfu.internalUrl(), meetingId.toString(), pid.toString(), g.epoch);
            }
            if (next.releaseFrom() != null) {
                releaseAtOldSfu(next.releaseFrom(), next.currentSfu(), meetingId, pid, g.epoch);
            }
        }
        enforcement.check(meetingId, g.epoch, g);
    }

    /**
     * Make-before-break for a move between SFUs (a drain, a new generation elsewhere): the participant's new
     * connection is up at the new SFU (or the fallback time passed, {@link GrantLedger#RELEASE_FALLBACK_NANOS}), so
     * the old SFU may drop its transports now instead of waiting for consent expiry; that is what lets a draining SFU
     * reach zero transports.
     */
    void releaseAtOldSfu(String oldPod, String currentPod, UUID meetingId, UUID pid, long epoch) {
        if (oldPod.equals(currentPod)) {
            return;
        }
        SfuEntry old = selector.get(oldPod).orElse(null);
        if (old == null) {
            return; // gone already: nothing holds the transports
        }
        released.increment();
        sfus.removeParticipant(old.internalUrl(), meetingId.toString(), pid.toString(), epoch).thenAccept(status -> {
            if (status / 100 != 2) {
                LOG.info("releasing {} at old SFU {} answered {}", pid, oldPod, status);
            }
        });
    }
}
