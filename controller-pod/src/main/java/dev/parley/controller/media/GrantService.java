package dev.parley.controller.media;

import dev.parley.controller.command.CommandService;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.control.ControlEvent;
import dev.parley.controller.db.Db;
import dev.parley.controller.ownership.Ownership;
import dev.parley.controller.participant.ParticipantRow;
import dev.parley.controller.control.SessionHub;
import dev.parley.platform.etcd.ProcessLease;
import dev.parley.platform.etcd.SfuEntry;
import dev.parley.platform.grant.Grant;
import dev.parley.platform.grant.GrantAck;
import dev.parley.platform.grant.PublishRights;
import dev.parley.platform.grant.PutGrantBatchRequest;
import dev.parley.platform.internal.PutGrantBatchResponse;
import dev.parley.platform.grant.PutGrantsRequest;
import dev.parley.platform.internal.InternalError;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micronaut.context.annotation.Context;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Media authorisation at the SFUs for the meetings we own: pushes grants after each commit, renews them
 * about every second (one batch request per SFU for all our meetings there) with a ttl of at most 3 s and never beyond what the lease can vouch for, and
 * tracks pending commands until every SFU acknowledged the new version or every older grant provably
 * expired ({@code committed} → {@code applied}). A lease in doubt stops all renewals.
 */
@Context
@Singleton
public final class GrantService {
    private static final Logger LOG = LoggerFactory.getLogger(GrantService.class);
    /** Safety margin between grant expiry and what the lease vouches for. */
    static final long LEASE_MARGIN_MS = 300;

    private final Db db;
    private final Ownership ownership;
    private final ProcessLease lease;
    private final SfuClient sfus;
    private final SfuSelector selector;
    private final CommandService commands;
    private final SessionHub sessions;
    private final Timer enforcementLag;
    private final Counter released;
    private final Map<UUID, MeetingGrants> meetings = new ConcurrentHashMap<>();
    /**
     * Renewal requests in flight at once. A renewal round is one batch request per SFU (one per owned meeting
     * towards an SFU without the batch path; sent all at once those queued a command's push, a revocation,
     * behind hundreds of renewals). Pushes after a commit take no slot.
     */
    static final int RENEWALS_IN_FLIGHT = 32;
    static final long RENEWAL_SLOT_WAIT_MS = 2000;
    /** Grants per renewal request: keeps a batch well under the SFU's 256 KiB body limit (~170 bytes a grant). */
    static final int MAX_BATCH_GRANTS = 1000;
    /** How long an SFU that answered the batch path with 404 gets one request per meeting before we retry it. */
    static final long BATCH_RETRY_NANOS = TimeUnit.SECONDS.toNanos(60);
    private final Map<String, Long> batchUnsupportedSince = new ConcurrentHashMap<>();
    private final Semaphore renewalSlots = new Semaphore(RENEWALS_IN_FLIGHT);
    private final ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "grant-renewal");
        t.setDaemon(true);
        return t;
    });
    /**
     * Writers of {@code applied} (a transaction each), striped by meeting so one meeting's commands are marked
     * in order. They run off the thread that handles an SFU's answer: that thread is the SFU's only push lane,
     * and a database write there held back the next push (a revocation behind other commands' bookkeeping).
     */
    static final int APPLIED_WRITERS = 2;
    private final ExecutorService[] appliedWriters = new ExecutorService[APPLIED_WRITERS];
    /** Commands whose enforcement is done and whose {@code applied} write is queued or running. */
    private final Set<UUID> marking = ConcurrentHashMap.newKeySet();

    public GrantService(Db db, Ownership ownership, ProcessLease lease, SfuClient sfus, SfuSelector selector,
                        CommandService commands, SessionHub sessions, MeterRegistry meters, ParleyConfig cfg) {
        this.db = db;
        this.ownership = ownership;
        this.lease = lease;
        this.sfus = sfus;
        this.selector = selector;
        this.commands = commands;
        this.sessions = sessions;
        this.enforcementLag = Timer.builder("parley_authorization_enforcement_lag")
                .description("commit of a permission change until every SFU enforces it (applied)")
                .publishPercentiles(0.5, 0.99).register(meters);
        this.released = Counter.builder("parley_sfu_participants_released")
                .description("participants released (DELETE) at the SFU they moved away from").register(meters);
        meters.gauge("parley_active_meetings", meetings, Map::size);
        ownership.onAcquired(this::acquired);
        ownership.onLost(meetings::remove);
        for (int i = 0; i < APPLIED_WRITERS; i++) {
            String name = "grant-applied-" + i;
            appliedWriters[i] = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                return t;
            });
        }
        exec.scheduleWithFixedDelay(this::renewAll, cfg.grantRenewMillis(), cfg.grantRenewMillis(), TimeUnit.MILLISECONDS);
    }

    /** Per participant: what we want the SFU to hold and what we know it holds. */
    static final class PartState {
        volatile long version;
        volatile PublishRights rights = PublishRights.NONE;
        volatile boolean active;
        volatile String sfu;
        volatile long acked = -1;
        volatile boolean removedAtSfu;
        /** The SFU this participant moved away from; released (DELETE) once the new SFU holds a grant. */
        volatile String releaseFrom;
        /** version → latest expiry (nanoTime) of any grant we sent with that version. */
        final NavigableMap<Long, Long> sentExpiry = new ConcurrentSkipListMap<>();

        /** When every grant older than version v has certainly expired at the SFU. */
        long olderGrantsExpireAt(long v) {
            long max = Long.MIN_VALUE;
            for (Long e : sentExpiry.headMap(v, false).values()) {
                max = Math.max(max, e);
            }
            return max;
        }
    }

    record Pending(UUID commandId, Map<UUID, Long> targets, long committedNanos, boolean endsMeeting) {
    }

    static final class MeetingGrants {
        final long epoch;
        final Map<UUID, PartState> parts = new ConcurrentHashMap<>();
        final List<Pending> pending = new CopyOnWriteArrayList<>();

        MeetingGrants(long epoch) {
            this.epoch = epoch;
        }
    }

    private void acquired(UUID meetingId, long epoch) {
        MeetingGrants g = new MeetingGrants(epoch);
        meetings.put(meetingId, g);
        // ONE autocommit statement (a new meeting has neither rows nor commands, and this runs on the first
        // request of every meeting): the participants with a transport, then the commands the previous owner
        // left pending (command_id set), whose old grants expire within ttl + timeout
        List<UUID> pendingIds = new ArrayList<>();
        List<Boolean> pendingEnds = new ArrayList<>();
        db.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT participant_id, version, admission_state, "
                    + "audio_publish_allowed, video_publish_allowed, screen_publish_allowed, sfu_pod, NULL::uuid, NULL "
                    + "FROM meeting_participants WHERE meeting_id = ? AND sfu_pod IS NOT NULL UNION ALL "
                    + "SELECT NULL, 0, NULL, false, false, false, NULL, command_id, command_type FROM commands "
                    + "WHERE meeting_id = ? AND media_enforcement = 'pending'")) {
                ps.setObject(1, meetingId);
                ps.setObject(2, meetingId);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        UUID command = rs.getObject(8, UUID.class);
                        if (command != null) {
                            pendingIds.add(command);
                            pendingEnds.add("end_meeting".equals(rs.getString(9)));
                        } else {
                            applyRow(g, rs);
                        }
                    }
                }
            }
            return null;
        });
        for (int i = 0; i < pendingIds.size(); i++) {
            // we don't know what the old owner pushed: wait for our (higher-epoch) grants to be
            // acknowledged everywhere, or for every old grant to run out
            Map<UUID, Long> targets = new HashMap<>();
            for (Map.Entry<UUID, PartState> e : g.parts.entrySet()) {
                targets.put(e.getKey(), e.getValue().version);
            }
            g.pending.add(new Pending(pendingIds.get(i), targets, System.nanoTime(), pendingEnds.get(i)));
        }
        for (PartState p : g.parts.values()) {
            // unknown grants from the previous epoch: assume the longest they could live
            p.sentExpiry.put(0L, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Grant.MAX_TTL_MS
                    + SfuClient.GRANT_TIMEOUT.toMillis()));
        }
    }

    /** Re-reads the participants that have (or had) a transport (one autocommit SELECT). */
    public void reload(UUID meetingId) {
        MeetingGrants g = meetings.get(meetingId);
        if (g == null) {
            return;
        }
        db.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT participant_id, version, admission_state, "
                    + "audio_publish_allowed, video_publish_allowed, screen_publish_allowed, sfu_pod "
                    + "FROM meeting_participants WHERE meeting_id = ? AND sfu_pod IS NOT NULL")) {
                ps.setObject(1, meetingId);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        applyRow(g, rs);
                    }
                }
            }
            return null;
        });
    }

    private static void applyRow(MeetingGrants g, ResultSet rs) throws java.sql.SQLException {
        boolean admitted = "admitted".equals(rs.getString(3));
        apply(g, rs.getObject(1, UUID.class), rs.getLong(2), admitted,
                admitted ? new PublishRights(rs.getBoolean(4), rs.getBoolean(5), rs.getBoolean(6)) : PublishRights.NONE,
                rs.getString(7));
    }

    /** Takes a participant's committed state unless we already hold a newer version of it. */
    private static void apply(MeetingGrants g, UUID pid, long v, boolean admitted, PublishRights rights, String sfu) {
        PartState s = g.parts.computeIfAbsent(pid, k -> new PartState());
        synchronized (s) {
            if (v < s.version) {
                return;
            }
            s.version = v;
            s.active = admitted;
            s.rights = admitted ? rights : PublishRights.NONE;
            if (!sfu.equals(s.sfu)) {
                if (s.sfu != null) {
                    s.releaseFrom = s.sfu;
                }
                s.sfu = sfu;
                s.acked = -1;
            }
        }
    }

    /**
     * Takes the rows a committed transaction wrote (no re-read: the transaction returned them); rows without
     * a transport are not tracked (the SFU knows nothing of them). Returns whether any tracked row changed.
     */
    private static boolean apply(MeetingGrants g, List<ParticipantRow> rows) {
        boolean any = false;
        for (ParticipantRow p : rows) {
            if (p.sfuPod() != null) {
                apply(g, p.participantId(), p.version(), p.isAdmitted(), p.rights(), p.sfuPod());
                any = true;
            }
        }
        return any;
    }

    /**
     * After a command commit: take the rows it wrote, track enforcement, push at once when an SFU holds one
     * of them (an admit of a participant without a transport changes nothing at any SFU: no push).
     */
    public void afterCommit(UUID meetingId, CommandService.Committed cmd) {
        MeetingGrants g = meetings.get(meetingId);
        if (g == null || cmd.replay()) {
            return;
        }
        boolean changed = apply(g, cmd.changed());
        if (cmd.pending()) {
            g.pending.add(new Pending(cmd.commandId(), Map.copyOf(cmd.grantTargets()), System.nanoTime(), cmd.endsMeeting()));
        }
        if (changed || cmd.pending()) {
            pushSoon(meetingId, g);
        }
    }

    /** After a change outside the command path (leave, reconnect timeout): re-read and push revocations now. */
    public void refresh(UUID meetingId) {
        MeetingGrants g = meetings.get(meetingId);
        if (g != null) {
            reload(meetingId);
            pushSoon(meetingId, g);
        }
    }

    /**
     * After a transport was reserved (the row as its transaction left it): the SFU should hold a grant before
     * the client's offer arrives.
     */
    public void afterTransport(UUID meetingId, ParticipantRow row) {
        MeetingGrants g = meetings.get(meetingId);
        if (g != null && apply(g, List.of(row))) {
            pushSoon(meetingId, g);
        }
    }

    /** The current grant of a participant for a transport request, or null when not owned/unknown. */
    public Grant currentGrant(UUID meetingId, UUID participantId) {
        MeetingGrants g = meetings.get(meetingId);
        PartState s = g == null ? null : g.parts.get(participantId);
        long ttl = ttlNow();
        if (s == null || ttl <= 0) {
            return null;
        }
        synchronized (s) {
            long exp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ttl) + SfuClient.GRANT_TIMEOUT.toNanos();
            s.sentExpiry.merge(s.version, exp, Math::max);
            return s.active ? new Grant(participantId.toString(), s.version, g.epoch, s.rights, true, ttl)
                    : Grant.revoked(participantId.toString(), s.version, g.epoch, ttl);
        }
    }

    public Long epochOf(UUID meetingId) {
        MeetingGrants g = meetings.get(meetingId);
        return g == null ? null : g.epoch;
    }

    /** Grant ttl for now: ≤ 3 s and ending before the lease could expire; 0 = don't grant. */
    long ttlNow() {
        long ttl = Math.min(Grant.MAX_TTL_MS, lease.confirmedRemainingMillis() - LEASE_MARGIN_MS);
        return ttl < 200 ? 0 : ttl;
    }

    private void renewAll() {
        try {
            long ttl = ttlNow();
            if (ttl > 0) { // lease in doubt: renew nothing, let every grant run out
                renewBatched(ttl);
            }
            for (Map.Entry<UUID, MeetingGrants> e : meetings.entrySet()) {
                checkPending(e.getKey(), e.getValue());
            }
        } catch (InterruptedException stop) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException ex) {
            LOG.warn("grant renewal round failed", ex);
        }
    }

    /** One meeting's grants for one SFU in a renewal round. */
    private record Outgoing(UUID meetingId, MeetingGrants g, List<Grant> grants) {
    }

    /**
     * A renewal round: the grants of every meeting we own, ONE request per SFU (chunks of at most
     * {@link #MAX_BATCH_GRANTS}) instead of one per meeting. The requests are sent right after the grants were
     * collected (expiry bound recorded), never after waiting for a slot: a chunk without a free slot is skipped
     * this round (its grants were never sent, so the recorded bound only over-estimates).
     */
    private void renewBatched(long ttl) throws InterruptedException {
        long expiry = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ttl) + SfuClient.GRANT_TIMEOUT.toNanos();
        Map<String, List<Outgoing>> bySfu = new HashMap<>();
        for (Map.Entry<UUID, MeetingGrants> e : meetings.entrySet()) {
            collect(e.getValue(), ttl, expiry, null).forEach((sfu, grants) ->
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
            if (batchUnsupported(sfu.pod())) {
                renewOneByOne(sfu.pod(), e.getValue());
                continue;
            }
            for (List<Outgoing> chunk : chunks(e.getValue())) {
                if (!renewalSlots.tryAcquire()) {
                    LOG.warn("grant renewal batch to {} skipped: {} renewal requests still in flight", sfu.pod(), RENEWALS_IN_FLIGHT);
                    break;
                }
                sendBatch(sfu, chunk).whenComplete((r, t) -> renewalSlots.release());
            }
        }
    }

    static List<List<Outgoing>> chunks(List<Outgoing> all) {
        List<List<Outgoing>> out = new ArrayList<>();
        List<Outgoing> cur = new ArrayList<>();
        int n = 0;
        for (Outgoing o : all) {
            if (!cur.isEmpty() && n + o.grants().size() > MAX_BATCH_GRANTS) {
                out.add(cur);
                cur = new ArrayList<>();
                n = 0;
            }
            cur.add(o);
            n += o.grants().size();
        }
        if (!cur.isEmpty()) {
            out.add(cur);
        }
        return out;
    }

    private CompletableFuture<Void> sendBatch(SfuEntry sfu, List<Outgoing> chunk) {
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
                batchUnsupportedSince.put(sfu.pod(), System.nanoTime());
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

    private boolean batchUnsupported(String pod) {
        Long since = batchUnsupportedSince.get(pod);
        if (since != null && System.nanoTime() - since > BATCH_RETRY_NANOS) {
            batchUnsupportedSince.remove(pod, since); // try the batch path again (the SFU may have been upgraded)
            return false;
        }
        return since != null;
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
            push(o.meetingId(), o.g(), pod).whenComplete((r, t) -> renewalSlots.release());
        }
    }

    /**
     * The meeting's grants per SFU (only {@code onlySfu}'s when not null), recording {@code expiry} as the bound
     * of every grant returned (whoever sends them must do so at once).
     */
    private static Map<String, List<Grant>> collect(MeetingGrants g, long ttl, long expiry, String onlySfu) {
        Map<String, List<Grant>> bySfu = new HashMap<>();
        for (Map.Entry<UUID, PartState> e : g.parts.entrySet()) {
            PartState s = e.getValue();
            synchronized (s) {
                if (s.sfu == null || (!s.active && s.removedAtSfu) || (onlySfu != null && !onlySfu.equals(s.sfu))) {
                    continue;
                }
                Grant grant = s.active ? new Grant(e.getKey().toString(), s.version, g.epoch, s.rights, true, ttl)
                        : Grant.revoked(e.getKey().toString(), s.version, g.epoch, ttl);
                s.sentExpiry.merge(s.version, expiry, Math::max);
                bySfu.computeIfAbsent(s.sfu, k -> new ArrayList<>()).add(grant);
            }
        }
        return bySfu;
    }

    /** At most one push request in flight per SFU; what comes meanwhile goes together in the next one. */
    private final PushLanes lanes = new PushLanes(this::sendNow);

    /**
     * Pushes the meeting's grants to its SFUs now (after a commit or a transport), through {@link PushLanes}:
     * under load several meetings' pushes to one SFU share a request (a batch); when idle nothing waits.
     */
    private void pushSoon(UUID meetingId, MeetingGrants g) {
        Set<String> pods = new HashSet<>();
        for (PartState s : g.parts.values()) {
            String pod = s.sfu;
            if (pod != null) {
                pods.add(pod);
            }
        }
        for (String pod : pods) {
            lanes.mark(pod, meetingId);
        }
    }

    /** The current grants of these meetings at one SFU: one meeting → {@code PUT /grants}, several → one batch. */
    private CompletableFuture<Void> sendNow(String pod, List<UUID> ids) {
        long ttl = ttlNow();
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
        if (ids.size() == 1 || batchUnsupported(pod)) {
            List<CompletableFuture<Void>> sent = new ArrayList<>();
            for (UUID id : ids) {
                MeetingGrants g = meetings.get(id);
                if (g != null) {
                    sent.add(push(id, g, pod));
                }
            }
            return CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0]));
        }
        long expiry = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ttl) + SfuClient.GRANT_TIMEOUT.toNanos();
        List<Outgoing> out = new ArrayList<>();
        for (UUID id : ids) {
            MeetingGrants g = meetings.get(id);
            List<Grant> grants = g == null ? null : collect(g, ttl, expiry, pod).get(pod);
            if (grants != null) {
                out.add(new Outgoing(id, g, grants));
            }
        }
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        for (List<Outgoing> chunk : chunks(out)) {
            sent.add(sendBatch(sfu, chunk));
        }
        return CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0]));
    }

    private CompletableFuture<Void> push(UUID meetingId, MeetingGrants g, String onlySfu) {
        long ttl = ttlNow();
        if (ttl <= 0) {
            return CompletableFuture.completedFuture(null); // lease in doubt: let every grant run out
        }
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        long expiry = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ttl) + SfuClient.GRANT_TIMEOUT.toNanos();
        for (Map.Entry<String, List<Grant>> e : collect(g, ttl, expiry, onlySfu).entrySet()) {
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
            PartState s = g.parts.get(pid);
            if (s == null || !sfu.pod().equals(s.sfu)) {
                continue;
            }
            synchronized (s) {
                s.acked = Math.max(s.acked, a.version());
                s.sentExpiry.headMap(s.acked, false).clear();
                if (!s.active && s.acked >= s.version && !s.removedAtSfu) {
                    s.removedAtSfu = true;
                    sfus.removeParticipant(sfu.internalUrl(), meetingId.toString(), pid.toString(), g.epoch);
                }
                String old = s.releaseFrom;
                if (old != null) {
                    s.releaseFrom = null;
                    releaseAtOldSfu(old, s.sfu, meetingId, pid, g.epoch);
                }
            }
        }
        checkPending(meetingId, g);
    }

    /**
     * Make-before-break for a move between SFUs (a drain, a new generation elsewhere): the new SFU already
     * holds the participant's grant, so the old one may drop its transports now instead of waiting for
     * consent expiry; that is what lets a draining SFU reach zero transports.
     */
    private void releaseAtOldSfu(String oldPod, String currentPod, UUID meetingId, UUID pid, long epoch) {
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

    private void checkPending(UUID meetingId, MeetingGrants g) {
        long now = System.nanoTime();
        for (Pending p : g.pending) {
            boolean done = true;
            for (Map.Entry<UUID, Long> t : p.targets().entrySet()) {
                PartState s = g.parts.get(t.getKey());
                if (s == null) {
                    continue;
                }
                boolean acked = s.acked >= t.getValue();
                long olderExpiry = s.olderGrantsExpireAt(t.getValue());
                boolean oldExpired = olderExpiry == Long.MIN_VALUE || now - olderExpiry > 0;
                if (!acked && !oldExpired) {
                    done = false;
                    break;
                }
            }
            if (done && g.pending.remove(p)) {
                marking.add(p.commandId());
                long lagNanos = now - p.committedNanos();
                try {
                    appliedWriters[Math.floorMod(meetingId.hashCode(), APPLIED_WRITERS)]
                            .execute(() -> writeApplied(meetingId, g, p, lagNanos));
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
    private void writeApplied(UUID meetingId, MeetingGrants g, Pending p, long lagNanos) {
        try {
            List<ControlEvent> events = commands.markApplied(meetingId, g.epoch, p.commandId(), p.endsMeeting());
            enforcementLag.record(lagNanos, TimeUnit.NANOSECONDS);
            sessions.publish(meetingId, events);
            if (p.endsMeeting()) {
                sessions.closeMeeting(meetingId);
            }
        } catch (RuntimeException e) {
            LOG.warn("marking command {} applied failed: {}", p.commandId(), e.toString());
            g.pending.add(p); // before leaving `marking`: isPending never sees a gap
        } finally {
            marking.remove(p.commandId());
        }
    }

    /** Whether a command is still pending here (for tests and the API). */
    public boolean isPending(UUID meetingId, UUID commandId) {
        MeetingGrants g = meetings.get(meetingId);
        return marking.contains(commandId)
                || (g != null && g.pending.stream().anyMatch(p -> p.commandId().equals(commandId)));
    }

    @PreDestroy
    void stop() {
        exec.shutdownNow();
        for (ExecutorService w : appliedWriters) {
            w.shutdown(); // queued applied writes still run; what remains is found pending by the next owner
        }
    }
}
