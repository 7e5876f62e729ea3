package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.control.Cursor;
import dev.parley.controller.db.Db;
import dev.parley.controller.peer.PodLink;
import dev.parley.controller.media.GrantService;
import dev.parley.controller.media.SfuClient;
import dev.parley.controller.media.SfuSelector;
import dev.parley.controller.meeting.MeetingRow;
import dev.parley.controller.ownership.Ownership;
import dev.parley.controller.ownership.Route;
import dev.parley.controller.participant.ParticipantRow;
import dev.parley.controller.participant.ParticipantService;
import dev.parley.platform.etcd.SfuEntry;
import dev.parley.platform.grant.Grant;
import dev.parley.platform.internal.CreateTransportRequest;
import dev.parley.platform.internal.PublishSource;
import dev.parley.platform.internal.TrackSubscription;
import dev.parley.platform.internal.TransportKind;
import dev.parley.platform.internal.UpdateSubscriptionsRequest;
import dev.parley.platform.ticket.ConnectTicketClaims;
import dev.parley.platform.ticket.TicketRejectedException;
import dev.parley.platform.ticket.TicketSigner;
import dev.parley.platform.ticket.TicketVerifier;
import io.micrometer.core.instrument.Timer;
import io.micronaut.http.HttpRequest;
import io.micronaut.security.annotation.Secured;
import io.micronaut.security.rules.SecurityRule;
import io.micronaut.websocket.CloseReason;
import io.micronaut.websocket.WebSocketSession;
import io.micronaut.websocket.annotation.OnClose;
import io.micronaut.websocket.annotation.OnError;
import io.micronaut.websocket.annotation.OnMessage;
import io.micronaut.websocket.annotation.OnOpen;
import io.micronaut.websocket.annotation.ServerWebSocket;
import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The signaling WebSocket {@code /v1/connect}. Authentication is the connect ticket (not the bearer
 * token): signature, expiry and single use. Offers/subscriptions are relayed to the SFU without touching
 * the database; control events arrive in cursor order; a dropped socket puts the participant into a
 * reconnecting grace period (30 s) before it is marked left.
 */
@ServerWebSocket("/v1/connect")
@Secured(SecurityRule.IS_ANONYMOUS)
public class SignalingSocket {
    private static final Logger LOG = LoggerFactory.getLogger(SignalingSocket.class);
    static final long IDLE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** A socket that has not joined within {@code PARLEY_SIGNALING_JOIN_TIMEOUT_MILLIS} of its opening. */
    static final CloseReason JOIN_TIMEOUT = new CloseReason(4408, "join_timeout");
    /** Refused at opening: its source address holds {@code PARLEY_SIGNALING_MAX_UNJOINED_PER_SOURCE} unjoined sockets. */
    static final CloseReason TOO_MANY_UNJOINED = new CloseReason(4429, "too_many_unjoined");

    private final SessionRegistry registry;
    private final TicketVerifier verifier;
    private final TicketSigner signer;
    private final Ownership ownership;
    private final Db db;
    private final GrantService grants;
    private final SfuClient sfus;
    private final SfuSelector selector;
    private final ParticipantService participants;
    private final ParleyConfig cfg;
    private final Timer joinToMediaReady;
    private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "signaling-timers");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, Conn> conns = new ConcurrentHashMap<>();
    /** (meeting, participant) → pending "left after grace" task. */
    private final Map<String, java.util.concurrent.ScheduledFuture<?>> graceTimers = new ConcurrentHashMap<>();
    /**
     * Presence notices of this pod's non-owner sockets, in order per (meeting, participant): one serial lane per
     * stripe; the decision "last socket of the participant here" and the enqueueing happen under the stripe's lock.
     */
    private static final int PRESENCE_STRIPES = 64;
    private final SerialExecutor[] presenceLanes = new SerialExecutor[PRESENCE_STRIPES];
    private final Object[] presenceLocks = new Object[PRESENCE_STRIPES];
    private final PodLink link;
    private final UnjoinedSockets unjoined;
    private final long joinTimeoutNanos;

    public SignalingSocket(SessionRegistry registry, TicketVerifier verifier, TicketSigner signer, Ownership ownership,
                           Db db, GrantService grants, SfuClient sfus, SfuSelector selector,
                           ParticipantService participants, ParleyConfig cfg,
                           dev.parley.controller.observability.RequestMetrics metrics,
                           PodLink link) {
        this.link = link;
        for (int i = 0; i < PRESENCE_STRIPES; i++) {
            presenceLanes[i] = new SerialExecutor(workers);
            presenceLocks[i] = new Object();
        }
        this.registry = registry;
        this.verifier = verifier;
        this.signer = signer;
        this.ownership = ownership;
        this.db = db;
        this.grants = grants;
        this.sfus = sfus;
        this.selector = selector;
        this.participants = participants;
        this.cfg = cfg;
        this.joinToMediaReady = metrics.joinToMediaReady();
        this.unjoined = new UnjoinedSockets(cfg.signalingMaxUnjoinedPerSource());
        this.joinTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(cfg.signalingJoinTimeoutMillis());
        timers.scheduleWithFixedDelay(this::sweep, 5, 5, TimeUnit.SECONDS);
    }

    /**
     * The unjoined phase is bounded from here: the socket must join within the join timeout, however much else it
     * sends (pings keep only joined sockets alive), and its source address may hold only so many unjoined sockets.
     */
    @OnOpen
    public void onOpen(WebSocketSession session, HttpRequest<?> request) {
        Conn c = conn(session);
        if (!unjoined.admit(c, source(request))) {
            conns.remove(session.getId(), c);
            LOG.debug("socket from {} refused: too many unjoined sockets", source(request));
            session.close(TOO_MANY_UNJOINED);
            return;
        }
        c.joinDeadline = timers.schedule(() -> {
            if (!c.joined() && c.session.isOpen()) {
                c.session.close(JOIN_TIMEOUT);
            }
        }, joinTimeoutNanos, TimeUnit.NANOSECONDS);
    }

    /** The peer address of the socket's TCP connection (behind a proxy: the proxy's). */
    private static String source(HttpRequest<?> request) {
        java.net.InetSocketAddress a = request.getRemoteAddress();
        return a == null || a.getAddress() == null ? String.valueOf(a) : a.getAddress().getHostAddress();
    }

    /** The socket no longer counts as unjoined: it joined or closed. */
    private void leftUnjoinedPhase(Conn c) {
        unjoined.release(c);
        java.util.concurrent.Future<?> deadline = c.joinDeadline;
        if (deadline != null) {
            deadline.cancel(false);
        }
    }

    /** The socket's state; created on first use because a message may be dispatched before onOpen has run. */
    private Conn conn(WebSocketSession session) {
        return conns.computeIfAbsent(session.getId(), id -> new Conn(session, workers));
    }

    @OnMessage(maxPayloadLength = 262144)
    public void onMessage(String message, WebSocketSession session) {
        if (!session.isOpen()) {
            return;
        }
        Conn c = conn(session);
        c.lastSeenNanos = System.nanoTime();
        c.tasks.execute(() -> handle(c, message));
    }

    @OnClose
    public void onClose(WebSocketSession session) {
        Conn c = conns.remove(session.getId());
        if (c != null) {
            leftUnjoinedPhase(c);
            c.tasks.execute(() -> closed(c));
        }
    }

    @OnError
    public void onError(WebSocketSession session, Throwable t) {
        LOG.debug("socket error: {}", t.toString());
    }

    private void handle(Conn c, String raw) {
        ObjectNode msg;
        try {
            JsonNode n = JsonBody.JSON.readTree(raw);
            if (n == null || !n.isObject() || !n.path("type").isTextual()) {
                error(c, "invalid_message", "messages are JSON objects with a string 'type'");
                return;
            }
            msg = (ObjectNode) n;
        } catch (Exception e) {
            error(c, "malformed_json", "message is not valid JSON");
            return;
        }
        try {
            JsonBody.requireStorableText(msg); // the same rule as request bodies: nothing PostgreSQL cannot hold
        } catch (ApiException e) {
            ObjectNode o = errorMessage(e.code(), e.getMessage());
            e.extra().forEach((k, v) -> o.put(k, String.valueOf(v)));
            registry.sendRaw(c, o);
            return;
        }
        String type = msg.get("type").asText();
        try {
            switch (type) {
                case "ping" -> reply(c, "pong");
                case "join" -> join(c, msg, null);
                case "resume" -> {
                    Cursor cur = Cursor.parse(msg.path("resume_after").asText(null));
                    if (cur == null) {
                        error(c, "invalid_cursor", "resume_after must be '{epoch}.{seq}'");
                        return;
                    }
                    join(c, msg, cur);
                }
                case "offer" -> offer(c, msg);
                case "subscribe" -> subscribe(c, msg);
                case "trickle" -> {
                    // the SFU is ICE-lite: it learns client candidates from connectivity checks
                }
                case "leave" -> leave(c);
                default -> error(c, "unknown_message", "unknown message type '" + type + "'");
            }
        } catch (RuntimeException e) {
            if (e instanceof Db.DbException db && db.connectionFailure()) {
                LOG.warn("signaling message {}: database unreachable", type);
                error(c, "database_unavailable", "the database is not reachable; retry later");
                return;
            }
            LOG.warn("signaling message {} failed: {}", type, e.toString());
            error(c, "internal_error", "the message could not be processed");
        }
    }

    private void join(Conn c, ObjectNode msg, Cursor resumeAfter) {
        if (c.joined()) {
            error(c, "already_joined", "this socket is already joined");
            return;
        }
        ConnectTicketClaims t;
        try {
            t = verifier.verifyAndConsume(msg.path("connect_ticket").asText(""), null);
        } catch (TicketRejectedException e) {
            error(c, e.code(), e.getMessage());
            c.session.close(CloseReason.POLICY_VIOLATION);
            return;
        }
        UUID m = UUID.fromString(t.mid());
        UUID p = UUID.fromString(t.pid());
        Long epoch = ownership.epochIfOwned(m);
        boolean remote = false;
        if (epoch == null) {
            Route r;
            try {
                r = ownership.route(m);
            } catch (RuntimeException e) {
                error(c, "owner_unavailable", "meeting ownership is changing; reconnect");
                c.session.close(CloseReason.TRY_AGAIN_LATER);
                return;
            }
            if (r instanceof Route.Local local) {
                epoch = local.epoch();
            } else {
                // another pod owns the meeting: accepted here all the same, with the epoch PostgreSQL holds;
                // its events arrive through the outbox relay's cross-pod fan-out (docs/controller.md)
                remote = true;
            }
        }
        long ownEpoch = remote ? -1 : epoch;
        // authorisation from the source of truth, not from a cache
        Object[] state = db.readSnapshot(x -> {
            MeetingRow mr = MeetingRow.load(x, m, false);
            ParticipantRow pr = ParticipantRow.find(x, m, p, false);
            long admitted = 0;
            try (var ps = x.prepareStatement("SELECT admitted_at FROM meeting_participants WHERE meeting_id = ? AND participant_id = ?")) {
                ps.setObject(1, m);
                ps.setObject(2, p);
                try (var rs = ps.executeQuery()) {
                    if (rs.next() && rs.getTimestamp(1) != null) {
                        admitted = rs.getTimestamp(1).getTime();
                    }
                }
            }
            return new Object[]{mr, pr, admitted};
        });
        MeetingRow mr = (MeetingRow) state[0];
        ParticipantRow pr = (ParticipantRow) state[1];
        long ep = remote ? mr.controllerEpoch() : ownEpoch;
        if (mr.controllerEpoch() != ep) {
            error(c, "owner_changed", "reconnect");
            c.session.close(CloseReason.TRY_AGAIN_LATER);
            return;
        }
        if (mr.isClosing() || pr == null || !pr.isAdmitted()) {
            error(c, "not_admitted", "the participant is not admitted");
            c.session.close(CloseReason.POLICY_VIOLATION);
            return;
        }
        if (pr.transportGeneration() != t.gen()) {
            error(c, "stale_generation", "a newer transport generation exists");
            c.session.close(CloseReason.POLICY_VIOLATION);
            return;
        }
        c.meetingId = m;
        c.participantId = p;
        c.generation = t.gen();
        c.epoch = ep;
        c.sfuPod = t.sfu();
        c.deviceKey = t.dk();
        c.admittedAtMillis = (long) state[2];
        c.remote = remote;
        leftUnjoinedPhase(c);
        java.util.concurrent.ScheduledFuture<?> grace = graceTimers.remove(m + "/" + p);
        if (grace != null) {
            grace.cancel(false);
        }
        boolean replayable = resumeAfter != null && resumeAfter.epoch() == ep && resumeAfter.seq() <= mr.controlSeq();
        c.lastSeq = replayable ? resumeAfter.seq() : mr.controlSeq();
        registry.add(c);
        if (resumeAfter != null && !replayable) {
            c.lastSeq = mr.controlSeq();
            registry.sendSnapshotRequired(c, resumeAfter.epoch() != ep ? "controller epoch changed" : "unknown cursor");
        } else if (replayable && !registry.catchUp(c)) {
            c.lastSeq = currentSeq(m);
        }
        ObjectNode out = JsonBody.obj();
        out.put("type", "joined");
        out.put("cursor", ep + "." + c.lastSeq);
        out.put("participant_id", p.toString());
        out.put("transport_generation", c.generation);
        out.put("controller_epoch", ep);
        registry.sendRaw(c, out);
        // events committed while we were joining
        registry.catchUp(c);
        if (remote) {
            // the owner runs the reconnect grace: it must know this participant has a live socket here
            int stripe = stripe(m, p);
            long gen = c.generation;
            synchronized (presenceLocks[stripe]) {
                presenceLanes[stripe].execute(() -> toOwner(m, p, gen, Presence.OPEN));
            }
        }
    }

    private long currentSeq(UUID m) {
        return db.readSnapshot(x -> MeetingRow.load(x, m, false).controlSeq());
    }

    private void offer(Conn c, ObjectNode msg) {
        if (!requireJoined(c) || relayedToOwner(c, msg)) {
            return;
        }
        if (offer(bound(c, c.epoch), msg, o -> registry.sendRaw(c, o)) && !c.mediaReadyRecorded && c.admittedAtMillis > 0) {
            c.mediaReadyRecorded = true;
            joinToMediaReady.record(Math.max(0, System.currentTimeMillis() - c.admittedAtMillis), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * What a joined socket is bound to, as the owner's offer and subscription handling needs it ({@code epoch}:
     * the owner's).
     */
    record Bound(UUID meetingId, UUID participantId, long generation, String sfuPod, String deviceKey, long epoch) {
    }

    private static Bound bound(Conn c, long epoch) {
        return new Bound(c.meetingId, c.participantId, c.generation, c.sfuPod, c.deviceKey, epoch);
    }

    /** Relays an offer to the SFU; the answer or an error goes to {@code out}. True when answered. */
    private boolean offer(Bound c, ObjectNode msg, java.util.function.Consumer<ObjectNode> out) {
        TransportKind kind;
        try {
            kind = TransportKind.fromWire(msg.path("transport").asText(""));
        } catch (IllegalArgumentException e) {
            out.accept(errorMessage("invalid_transport", "transport must be publish or subscribe"));
            return false;
        }
        String sdp = msg.path("sdp").asText(null);
        if (sdp == null || sdp.isEmpty() || sdp.length() > 200_000) {
            out.accept(errorMessage("invalid_sdp", "sdp must be a non-empty string"));
            return false;
        }
        List<PublishSource> sources = kind == TransportKind.PUBLISH ? publishSources(msg.get("sources")) : null;
        if (sources == INVALID_SOURCES) {
            out.accept(errorMessage("invalid_sources", "sources must be at most 16 of {mid, source: microphone|camera|screen}"));
            return false;
        }
        Grant grant = grants.currentGrant(c.meetingId, c.participantId);
        SfuEntry sfu = selector.get(c.sfuPod).orElse(null);
        if (grant == null || sfu == null || !selector.isUsable(sfu.pod())) {
            out.accept(errorMessage(grant == null ? "not_authorized" : "media_server_unavailable",
                    "request a new transport generation"));
            return false;
        }
        // the client's ticket was used up by this socket; each SFU transport gets its own single-use ticket
        TicketSigner.IssuedTicket ticket = signer.issue(c.meetingId.toString(), c.participantId.toString(), c.generation,
                sfu.pod(), c.deviceKey, TicketSigner.MAX_LIFETIME);
        CreateTransportRequest req = new CreateTransportRequest(c.meetingId.toString(), c.participantId.toString(),
                c.generation, c.epoch, kind, ticket.token(), sdp, grant, cfg.publicUrl() + "/internal/v1/sfu-events", sources);
        var res = sfus.createTransport(sfu.internalUrl(), req).join();
        if (res.refused()) {
            // the SFU process is gone: this client and everyone else on it move now (new generation)
            selector.markUnreachable(sfu.pod());
            registry.volatileMessage(c.meetingId, "media_server_lost", sfu.pod());
            out.accept(errorMessage("media_server_unavailable", "request a new transport generation"));
            return false;
        }
        if (!res.ok()) {
            out.accept(errorMessage(res.error() == null ? "media_server_error" : res.error().code(), "the media server refused the offer"));
            return false;
        }
        ObjectNode answer = JsonBody.obj();
        answer.put("type", "answer");
        answer.put("transport", kind.wire());
        answer.put("transport_id", res.body().transportId());
        answer.put("sdp", res.body().sdpAnswer());
        answer.set("slot_assignments", JsonBody.JSON.valueToTree(res.body().slotAssignments() == null ? List.of()
                : res.body().slotAssignments()));
        out.accept(answer);
        return true;
    }

    private static final List<PublishSource> INVALID_SOURCES = java.util.Collections.unmodifiableList(new ArrayList<>());

    /**
     * The publish offer's {@code sources} ({@code [{mid, source}]}, what each m-section carries): null when absent,
     * {@link #INVALID_SOURCES} when malformed (the offer is refused and nothing reaches the SFU).
     */
    private static List<PublishSource> publishSources(JsonNode n) {
        if (n == null || n.isNull()) return null;
        if (!n.isArray() || n.size() > PublishSource.MAX) return INVALID_SOURCES;
        List<PublishSource> out = new ArrayList<>(n.size());
        for (JsonNode s : n) {
            if (!s.path("mid").isTextual() || !s.path("source").isTextual()) return INVALID_SOURCES;
            out.add(new PublishSource(s.get("mid").asText(), s.get("source").asText()));
        }
        return PublishSource.valid(out) ? out : INVALID_SOURCES;
    }

    private void subscribe(Conn c, ObjectNode msg) {
        if (!requireJoined(c) || relayedToOwner(c, msg)) {
            return;
        }
        subscribe(bound(c, c.epoch), msg, o -> registry.sendRaw(c, o));
    }

    /** Relays a subscription update to the SFU; the answer or an error goes to {@code out}. */
    private void subscribe(Bound c, ObjectNode msg, java.util.function.Consumer<ObjectNode> out) {
        JsonNode tracks = msg.get("tracks");
        if (tracks == null || !tracks.isArray() || tracks.size() > 200) {
            out.accept(errorMessage("invalid_tracks", "tracks must be an array of at most 200 entries"));
            return;
        }
        List<TrackSubscription> list = new ArrayList<>();
        for (JsonNode t : (ArrayNode) tracks) {
            if (!t.path("track_id").isTextual() || (t.has("pinned") && !t.get("pinned").isBoolean())) {
                out.accept(errorMessage("invalid_tracks", "every track needs a string track_id; pinned is a boolean"));
                return;
            }
            list.add(new TrackSubscription(t.get("track_id").asText(), t.path("max_width").asInt(0),
                    t.path("max_height").asInt(0), t.path("max_fps").asInt(0), t.path("pinned").asBoolean(false)));
        }
        SfuEntry sfu = selector.get(c.sfuPod).orElse(null);
        if (sfu == null) {
            out.accept(errorMessage("media_server_unavailable", "request a new transport generation"));
            return;
        }
        var res = sfus.updateSubscriptions(sfu.internalUrl(), c.meetingId.toString(), c.participantId.toString(),
                new UpdateSubscriptionsRequest(c.epoch, list)).join();
        if (!res.ok()) {
            out.accept(errorMessage(res.error() == null ? "media_server_error" : res.error().code(), "subscription update refused"));
            return;
        }
        ObjectNode done = JsonBody.obj();
        done.put("type", "subscribed");
        done.set("slot_assignments", JsonBody.JSON.valueToTree(res.body().slotAssignments() == null ? List.of()
                : res.body().slotAssignments()));
        out.accept(done);
    }

    private void leave(Conn c) {
        if (!requireJoined(c)) {
            return;
        }
        c.left = true;
        try {
            if (c.remote) {
                // in order after this participant's earlier notices; answered once the owner recorded it
                java.util.concurrent.CompletableFuture<Void> done = new java.util.concurrent.CompletableFuture<>();
                UUID m = c.meetingId;
                UUID p = c.participantId;
                long gen = c.generation;
                presenceLanes[stripe(m, p)].execute(() -> {
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
            } else {
                registry.publish(c.meetingId, participants.leave(c.meetingId, c.epoch, c.participantId, -1, "left"));
                grants.refresh(c.meetingId); // a participant who left must not keep media rights
            }
        } finally {
            reply(c, "left");
            c.session.close(CloseReason.NORMAL);
        }
    }

    private void closed(Conn c) {
        registry.remove(c);
        if (!c.joined() || c.left) {
            return;
        }
        if (c.remote) {
            // the owner hears "closed" when the participant's last socket on this pod is gone
            UUID m = c.meetingId;
            UUID p = c.participantId;
            long gen = c.generation;
            int stripe = stripe(m, p);
            synchronized (presenceLocks[stripe]) {
                if (!registry.hasOtherSocket(m, p, c)) {
                    presenceLanes[stripe].execute(() -> toOwner(m, p, gen, Presence.CLOSED));
                }
            }
            return;
        }
        if (registry.hasOtherSocket(c.meetingId, c.participantId, c)
                || registry.hasRemoteSocket(c.meetingId, c.participantId)) {
            return;
        }
        startGrace(c.meetingId, c.participantId, c.generation, c.epoch);
    }

    private static int stripe(UUID m, UUID p) {
        return Math.floorMod(m.hashCode() * 31 + p.hashCode(), PRESENCE_STRIPES);
    }

    /** What a non-owner tells the owner about one of its sockets. */
    enum Presence {
        OPEN, CLOSED, LEFT;

        String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        static Presence fromWire(String s) {
            for (Presence p : values()) {
                if (p.wire().equals(s)) {
                    return p;
                }
            }
            return null;
        }
    }

    /**
     * Sends a presence notice to the meeting's owner (this pod itself when it owns the meeting now), retried a
     * few times while ownership moves. Runs on the socket's serial executor, so one socket's notices arrive in
     * order.
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
                    if (presence(m, p, gen, what, null)) {
                        return;
                    }
                } else {
                    int status = link.post(((Route.Remote) r).owner().internalUrl(), PresenceController.PATH,
                            body.toString(), java.time.Duration.ofSeconds(5));
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
                java.util.concurrent.ScheduledFuture<?> grace = graceTimers.remove(m + "/" + p);
                if (grace != null) {
                    grace.cancel(false);
                }
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
            }
        }
        return true;
    }

    private void startGrace(UUID m, UUID p, long gen, long epoch) {
        registry.volatileMessage(m, "participant_reconnecting", p.toString());
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

    /**
     * Offers and subscriptions need the owner (its grants, its SFU choice, its epoch): on a socket accepted by a
     * non-owner they are relayed to the owner over the internal API and its replies are sent back on this socket
     * (this pod runs them itself when it has become the owner). True when the message was handled that way.
     */
    private boolean relayedToOwner(Conn c, ObjectNode msg) {
        if (!c.remote) {
            return false;
        }
        ObjectNode body = JsonBody.obj();
        body.put("meeting_id", c.meetingId.toString());
        body.put("participant_id", c.participantId.toString());
        body.put("transport_generation", c.generation);
        body.put("sfu_pod", c.sfuPod);
        body.put("device_key", c.deviceKey);
        body.set("message", msg);
        for (int attempt = 1; attempt <= 2; attempt++) {
            Route r;
            try {
                r = ownership.route(c.meetingId);
            } catch (RuntimeException e) {
                break;
            }
            if (r instanceof Route.Local local) {
                for (ObjectNode reply : relayed(bound(c, local.epoch()), msg)) {
                    registry.sendRaw(c, reply);
                }
                return true;
            }
            PodLink.Reply reply = link.call(((Route.Remote) r).owner().internalUrl(), PresenceController.RELAY_PATH,
                    body.toString(), java.time.Duration.ofSeconds(15));
            if (reply.status() == 200 && reply.body() != null && reply.body().path("replies").isArray()) {
                for (JsonNode n : reply.body().get("replies")) {
                    if (n.isObject()) {
                        registry.sendRaw(c, (ObjectNode) n);
                    }
                }
                return true;
            }
            if (reply.status() != 409) {
                break; // 409: ownership moved between the lookup and the call; look again once
            }
        }
        error(c, "owner_unavailable", "the meeting's controller did not answer; retry");
        return true;
    }

    /**
     * The owner's side of a relayed offer or subscription (the non-owner verified the socket's ticket): the
     * replies for the socket, or null when this pod does not own the meeting.
     */
    List<ObjectNode> relayed(UUID m, UUID p, long gen, String sfuPod, String deviceKey, ObjectNode msg) {
        Long epoch = ownership.epochIfOwned(m);
        return epoch == null ? null : relayed(new Bound(m, p, gen, sfuPod, deviceKey, epoch), msg);
    }

    private List<ObjectNode> relayed(Bound b, ObjectNode msg) {
        List<ObjectNode> replies = new ArrayList<>();
        switch (msg.path("type").asText("")) {
            case "offer" -> offer(b, msg, replies::add);
            case "subscribe" -> subscribe(b, msg, replies::add);
            default -> replies.add(errorMessage("unknown_message", "only offer and subscribe are relayed"));
        }
        return replies;
    }

    private void sweep() {
        long now = System.nanoTime();
        for (Conn c : conns.values()) {
            if (!c.joined() && now - c.openedNanos > joinTimeoutNanos) {
                c.session.close(JOIN_TIMEOUT); // a socket whose own deadline never ran (its open callback did not)
            }
        }
        registry.sweep(IDLE_TIMEOUT_NANOS);
    }

    private boolean requireJoined(Conn c) {
        if (!c.joined()) {
            error(c, "not_joined", "send join or resume first");
            return false;
        }
        return true;
    }

    private void reply(Conn c, String type) {
        ObjectNode o = JsonBody.obj();
        o.put("type", type);
        registry.sendRaw(c, o);
    }

    private void error(Conn c, String code, String detail) {
        registry.sendRaw(c, errorMessage(code, detail));
    }

    private static ObjectNode errorMessage(String code, String detail) {
        ObjectNode o = JsonBody.obj();
        o.put("type", "error");
        o.put("code", code);
        o.put("detail", detail);
        return o;
    }

    @PreDestroy
    void stop() {
        timers.shutdownNow();
        workers.shutdownNow();
    }
}
