package dev.parley.controller.media;

import dev.parley.controller.control.SessionHub;
import dev.parley.controller.enforcement.Enforcement;
import dev.parley.controller.media.GrantLedger.MeetingGrants;
import dev.parley.platform.etcd.SfuEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Renews every grant of the meetings we own, every period: ONE batch request per SFU (chunks of at most
 * {@link Outgoing#MAX_BATCH_GRANTS}), one request per meeting towards an SFU without the batch path
 * ({@link OldSfuFallback}); nothing while the lease is in doubt. Each round also asks {@link Enforcement} to
 * look at every meeting, so a command whose old grants ran out becomes applied without any acknowledgement.
 */
final class GrantRenewer {
    private static final Logger LOG = LoggerFactory.getLogger(GrantRenewer.class);
    /**
     * Renewal requests in flight at once. A renewal round is one batch request per SFU (one per owned meeting
     * towards an SFU without the batch path; sent all at once those queued a command's push, a revocation,
     * behind hundreds of renewals). Pushes after a commit take no slot.
     */
    static final int RENEWALS_IN_FLIGHT = 32;
    static final long RENEWAL_SLOT_WAIT_MS = 2000;

    private final GrantLedger ledger;
    private final LeaseGate gate;
    private final OldSfuFallback fallback;
    private final GrantPusher pusher;
    private final SfuSelector selector;
    private final SessionHub sessions;
    private final Enforcement enforcement;
    private final Semaphore renewalSlots = new Semaphore(RENEWALS_IN_FLIGHT);
    private final ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "grant-renewal");
        t.setDaemon(true);
        return t;
    });

    GrantRenewer(GrantLedger ledger, LeaseGate gate, OldSfuFallback fallback, GrantPusher pusher, SfuSelector selector,
                 SessionHub sessions, Enforcement enforcement) {
        this.ledger = ledger;
        this.gate = gate;
        this.fallback = fallback;
        this.pusher = pusher;
        this.selector = selector;
        this.sessions = sessions;
        this.enforcement = enforcement;
    }

    void start(long periodMillis) {
        exec.scheduleWithFixedDelay(this::renewAll, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    void stop() {
        exec.shutdownNow();
    }

    private void renewAll() {
        try {
            long ttl = gate.ttlNow();
            if (ttl > 0) { // lease in doubt: renew nothing, let every grant run out
                renewBatched(ttl);
            }
            long now = System.nanoTime();
            for (Map.Entry<UUID, MeetingGrants> e : ledger.meetings().entrySet()) {
                for (GrantLedger.Release r : GrantLedger.dueReleases(e.getValue(), now)) { // never connected there
                    pusher.releaseAtOldSfu(r.from(), r.to(), e.getKey(), r.participantId(), e.getValue().epoch);
                }
                enforcement.check(e.getKey(), e.getValue().epoch, e.getValue());
            }
        } catch (InterruptedException stop) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException ex) {
            LOG.warn("grant renewal round failed", ex);
        }
    }

    /**
     * A renewal round: the grants of every meeting we own, ONE request per SFU (chunks of at most
     * {@link Outgoing#MAX_BATCH_GRANTS}) instead of one per meeting. The requests are sent right after the grants
     * were collected (expiry bound recorded), never after waiting for a slot: a chunk without a free slot is
     * skipped this round (its grants were never sent, so the recorded bound only over-estimates).
     */
    private void renewBatched(long ttl) throws InterruptedException {
        long expiry = LeaseGate.expiryFor(ttl);
        Map<String, List<Outgoing>> bySfu = new HashMap<>();
        for (Map.Entry<UUID, MeetingGrants> e : ledger.meetings().entrySet()) {
            GrantLedger.collect(e.getValue(), ttl, expiry, null).forEach((sfu, grants) ->
                    bySfu.computeIfAbsent(sfu, k -> new ArrayList<>()).add(new Outgoing(e.getKey(), e.getValue(), grants)));
        }
        for (Map.Entry<String, List<Outgoing>> e : bySfu.entrySet()) {
            SfuEntry sfu = selector.get(e.getKey()).orElse(null);
            if (sfu == null) {
                for (Outgoing o : e.getValue()) {
                    sessions.volatileMessage(o.meetingId(), "media_server_lost", e.getKey());
                }
                continue; // SFU gone: its grants expire on their own
            }
            if (fallback.batchUnsupported(sfu.pod())) {
                renewOneByOne(sfu.pod(), e.getValue());
                continue;
            }
            for (List<Outgoing> chunk : Outgoing.chunks(e.getValue())) {
                if (!renewalSlots.tryAcquire()) {
                    LOG.warn("grant renewal batch to {} skipped: {} renewal requests still in flight", sfu.pod(), RENEWALS_IN_FLIGHT);
                    break;
                }
                pusher.sendBatch(sfu, chunk).whenComplete((r, t) -> renewalSlots.release());
            }
        }
    }

    /** Renewal of an SFU without the batch path: one request per meeting, at most {@link #RENEWALS_IN_FLIGHT}. */
    private void renewOneByOne(String pod, List<Outgoing> list) throws InterruptedException {
        for (Outgoing o : list) {
            // the slot is taken BEFORE push computes ttl and the expiry bound, so waiting for it never
            // makes a grant outlive what we recorded
            if (!renewalSlots.tryAcquire(RENEWAL_SLOT_WAIT_MS, TimeUnit.MILLISECONDS)) {
                LOG.warn("grant renewal round cut short: {} renewals still in flight", RENEWALS_IN_FLIGHT);
                return;
            }
            pusher.push(o.meetingId(), o.g(), pod).whenComplete((r, t) -> renewalSlots.release());
        }
    }
}
