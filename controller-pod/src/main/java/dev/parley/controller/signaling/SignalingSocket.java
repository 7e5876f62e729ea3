package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.db.Db;
import dev.parley.controller.e2ee.E2eeRelay;
import dev.parley.controller.e2ee.Sender;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import io.micronaut.http.HttpRequest;
import io.micronaut.security.annotation.Secured;
import io.micronaut.security.rules.SecurityRule;
import io.micronaut.websocket.WebSocketSession;
import io.micronaut.websocket.annotation.OnClose;
import io.micronaut.websocket.annotation.OnError;
import io.micronaut.websocket.annotation.OnMessage;
import io.micronaut.websocket.annotation.OnOpen;
import io.micronaut.websocket.annotation.ServerWebSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The signaling WebSocket {@code /v1/connect}: the socket's lifecycle and its messages, parsed once and routed by
 * type, each on the socket's serial executor. Authentication is the connect ticket (not the bearer token:
 * {@link JoinHandler}); offers and subscriptions go to the SFU without touching the database ({@link MediaRelay},
 * through the owner on a non-owner pod: {@link OwnerRelay}); control events arrive in cursor order
 * ({@link SessionRegistry}); a dropped socket puts the participant into the reconnecting grace before it is marked
 * left ({@link Departures}); a socket that does not join is bounded ({@link UnjoinedPhase}).
 */
@ServerWebSocket("/v1/connect")
@Secured(SecurityRule.IS_ANONYMOUS)
public class SignalingSocket {
    private static final Logger LOG = LoggerFactory.getLogger(SignalingSocket.class);
    static final long IDLE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final SessionRegistry registry;
    private final UnjoinedPhase unjoined;
    private final JoinHandler joins;
    private final MediaRelay media;
    private final OwnerRelay ownerRelay;
    private final Departures departures;
    private final Positions positions;
    private final E2eeRelay e2ee;
    private final ExecutorService workers;
    private final Map<String, Conn> conns = new ConcurrentHashMap<>();

    public SignalingSocket(SessionRegistry registry, UnjoinedPhase unjoined, JoinHandler joins, MediaRelay media,
                           OwnerRelay ownerRelay, Departures departures, SignalingExecutors executors,
                           Positions positions, E2eeRelay e2ee) {
        this.registry = registry;
        this.unjoined = unjoined;
        this.joins = joins;
        this.media = media;
        this.ownerRelay = ownerRelay;
        this.departures = departures;
        this.positions = positions;
        this.e2ee = e2ee;
        this.workers = executors.workers;
        executors.timers.scheduleWithFixedDelay(this::sweep, 5, 5, TimeUnit.SECONDS);
    }

    /** The unjoined phase is bounded from here (join deadline, unjoined sockets per source address). */
    @OnOpen
    public void onOpen(WebSocketSession session, HttpRequest<?> request) {
        Conn c = conn(session);
        if (!unjoined.opened(c, request)) {
            conns.remove(session.getId(), c);
            session.close(UnjoinedPhase.TOO_MANY_UNJOINED);
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
        c.tasks.execute(() -> withMdc(c, () -> handle(c, message)));
    }

    @OnClose
    public void onClose(WebSocketSession session) {
        Conn c = conns.remove(session.getId());
        if (c != null) {
            unjoined.ended(c);
            c.tasks.execute(() -> withMdc(c, () -> departures.closed(c)));
        }
    }

    @OnError
    public void onError(WebSocketSession session, Throwable t) {
        LOG.debug("socket error: {}", t.toString());
    }

    /** Runs a socket task with the socket's MDC ({@link SocketMdc}) and removes it after. */
    private static void withMdc(Conn c, Runnable task) {
        SocketMdc.put(c);
        try {
            task.run();
        } finally {
            SocketMdc.clear();
        }
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
            ObjectNode o = Replies.error(e.code(), e.getMessage());
            e.extra().forEach((k, v) -> o.put(k, String.valueOf(v)));
            registry.sendRaw(c, o);
            return;
        }
        String type = msg.get("type").asText();
        boolean wasJoined = c.joined();
        try {
            route(c, type, msg);
            if (!wasJoined && c.joined()) {
                SocketMdc.put(c); // the join bound the socket just now
                LOG.info("signaling socket joined ({})", type);
            }
        } catch (ApiException e) { // refused input of a message (e.g. a bad roster_page): said, never a crash
            error(c, e.code(), e.getMessage());
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

    /** One message to the class that handles its type; media messages of a non-owner's socket go to the owner. */
    private void route(Conn c, String type, ObjectNode msg) {
        switch (type) {
            case "ping" -> registry.sendRaw(c, Replies.typed("pong"));
            case "join" -> joins.join(c, msg, null);
            case "resume" -> joins.resume(c, msg);
            case "offer" -> {
                if (requireJoined(c) && !ownerRelay.relayedToOwner(c, msg)) {
                    media.offer(c, msg);
                }
            }
            case "subscribe" -> {
                if (requireJoined(c) && !ownerRelay.relayedToOwner(c, msg)) {
                    media.subscribe(c, msg);
                }
            }
            case "roster_page" -> { // paged roster: the participants this client shows (docs/api.md)
                if (requireJoined(c)) {
                    registry.rosterPage(c, msg);
                }
            }
            case "position" -> positions.received(c, msg); // area of interest: latest wins, rate-limited
            case "trickle" -> {
                // the SFU is ICE-lite: it learns client candidates from connectivity checks
            }
            case "leave" -> {
                if (requireJoined(c)) {
                    departures.leave(c);
                }
            }
            case "e2ee_identity", "e2ee_keys" -> { // key messages of e2ee meetings: checked, then relayed (e2ee/)
                if (requireJoined(c) && !ownerRelay.relayedToOwner(c, msg)) {
                    e2ee.handle(new Sender(c.meetingId, c.participantId, c.epoch), msg).forEach(r -> registry.sendRaw(c, r));
                }
            }
            default -> error(c, "unknown_message", "unknown message type '" + type + "'");
        }
    }

    private void sweep() {
        unjoined.sweep(conns.values());
        registry.sweep(IDLE_TIMEOUT_NANOS);
    }

    private boolean requireJoined(Conn c) {
        if (!c.joined()) {
            error(c, "not_joined", "send join or resume first");
            return false;
        }
        return true;
    }

    private void error(Conn c, String code, String detail) {
        registry.sendRaw(c, Replies.error(code, detail));
    }
}
