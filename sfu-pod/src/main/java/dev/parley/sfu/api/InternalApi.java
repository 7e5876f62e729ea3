package dev.parley.sfu.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.parley.media.sdp.SdpException;
import dev.parley.platform.grant.GrantAck;
import dev.parley.platform.grant.PutGrantBatchRequest;
import dev.parley.platform.internal.PutGrantBatchResponse;
import dev.parley.platform.grant.PutGrantsRequest;
import dev.parley.platform.grant.PutGrantsResponse;
import dev.parley.platform.internal.CreateTransportRequest;
import dev.parley.platform.internal.CreateTransportResponse;
import dev.parley.platform.internal.InternalAuth;
import dev.parley.platform.internal.InternalError;
import dev.parley.platform.internal.InternalPaths;
import dev.parley.platform.internal.PublishSource;
import dev.parley.platform.internal.TransportKind;
import dev.parley.platform.internal.UpdateSubscriptionsRequest;
import dev.parley.platform.internal.UpdateSubscriptionsResponse;
import dev.parley.platform.ticket.ConnectTicketClaims;
import dev.parley.platform.ticket.TicketRejectedException;
import dev.parley.platform.ticket.TicketVerifier;
import dev.parley.sfu.metrics.ProcessMetrics;
import dev.parley.sfu.routing.ControlException;
import dev.parley.sfu.routing.MeetingControl;
import dev.parley.sfu.routing.Router;
import dev.parley.sfu.worker.MediaWorker;
import dev.parley.sfu.worker.WorkerPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * The SFU's internal HTTP API (docs/internal-api.md), plus /metrics, /healthz and /readyz, on the internal port
 * only. Every /internal/v1 call needs the bearer secret. Errors are {@code application/problem+json} bodies
 * carrying the contract's {@code code} (and {@code highest_epoch} for stale epochs).
 */
public final class InternalApi implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(InternalApi.class);
    private static final int MAX_BODY = 256 * 1024;

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    /** Bodies are read as trees and checked field by field ({@link RequestBodies}); {@code {} x} is not JSON. */
    private final ObjectMapper json = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_TRAILING_TOKENS, true);
    private final WorkerPool workers;
    private final InternalAuth auth;
    private final TicketVerifier tickets;
    private final String podName;
    private final ProcessMetrics metrics;
    private final boolean testHooks;
    private final BooleanSupplier ready;
    private final KeptMediaPaths kept = new KeptMediaPaths(); // test hook (e2ee removal test)
    private volatile boolean draining;
    /** Test hook ({@link #pause}): requests wait unanswered, as on a starved process. */
    private final Object pauseLock = new Object();
    private boolean paused;
    /** Relays between SFUs: their routes live in {@link RelayRoutes}. */
    private final dev.parley.sfu.relay.RelayService relays;
    private final RelayRoutes relayRoutes;

    public InternalApi(String bind, int port, WorkerPool workers, InternalAuth auth, TicketVerifier tickets, String podName,
                       boolean testHooks, BooleanSupplier ready) throws IOException {
        this.workers = workers;
        this.metrics = workers.metrics();
        this.auth = auth;
        this.tickets = tickets;
        this.podName = podName;
        this.testHooks = testHooks;
        this.ready = ready;
        this.relays = new dev.parley.sfu.relay.RelayService(workers, podName);
        this.relayRoutes = new RelayRoutes(relays);
        server = HttpServer.create(new InetSocketAddress(bind, port), 64);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    public int port() { return server.getAddress().getPort(); }
    public boolean draining() { return draining; }

    /**
     * TEST ONLY (failure detection, from in-process tests): while paused every request, {@code /healthz} included,
     * waits unanswered (a starved or stalled process; media goes on); unpausing answers them and the next ones.
     */
    public void pause(boolean on) {
        synchronized (pauseLock) {
            paused = on;
            pauseLock.notifyAll();
        }
    }

    private void awaitUnpaused() {
        synchronized (pauseLock) {
            while (paused) {
                try {
                    pauseLock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void handle(HttpExchange ex) throws IOException {
        awaitUnpaused();
        try (ex) {
            String path = ex.getRequestURI().getPath();
            String method = ex.getRequestMethod();
            switch (path) {
                case "/healthz" -> { text(ex, 200, "ok\n"); return; }
                case "/readyz" -> { boolean ok = !draining && ready.getAsBoolean(); text(ex, ok ? 200 : 503, ok ? "ready\n" : "not ready\n"); return; }
                case "/metrics" -> { text(ex, 200, metrics.prometheus() + relays.prometheus()); return; }
                default -> { }
            }
            if (!path.startsWith(InternalPaths.BASE + "/")) { error(ex, 404, "not_found", null, "no such path"); return; }
            if (!auth.accepts(ex.getRequestHeaders().getFirst(InternalAuth.HEADER))) {
                if (path.startsWith(RelayRoutes.PREFIX + "/")) relays.refusedUnauthenticated(); // a forged relay grant
                error(ex, 401, "unauthorized", null, "bearer secret required");
                return;
            }
            try {
                route(ex, method, path);
            } catch (ControlException e) {
                error(ex, status(e), code(e), highestEpoch(e), e.getMessage());
            } catch (SdpException e) {
                error(ex, 400, "bad_sdp", null, e.getMessage());
            } catch (JsonFields.Invalid e) {
                error(ex, 400, "bad_request", null, e.getMessage());
            } catch (com.fasterxml.jackson.core.JacksonException e) {
                error(ex, 400, "bad_request", null, "body: not valid JSON"); // the parser's message would quote the body
            } catch (IllegalArgumentException e) {
                error(ex, 400, "bad_request", null, "malformed request body");
            } catch (RuntimeException e) {
                LOG.warn("internal API {} {} failed", method, path, e);
                error(ex, 500, "internal", null, "internal error");
            } finally {
                ApiMdc.clear(); // set by the handlers below once they know the meeting
            }
        }
    }

    private void route(HttpExchange ex, String method, String path) throws IOException {
        if (path.equals(InternalPaths.TRANSPORTS) && method.equals("POST")) { createTransport(ex); return; }
        if (path.equals(InternalPaths.GRANTS) && method.equals("PUT")) { putGrants(ex); return; }
        if (path.equals(InternalPaths.GRANT_BATCH) && method.equals("PUT")) { putGrantBatch(ex); return; }
        if (path.startsWith(RelayRoutes.PREFIX + "/")) {
            RelayRoutes.Result r = relayRoutes.route(method, path, method.equals("POST") ? tree(ex) : null, ex.getRequestURI(),
                    k -> queryLong(ex.getRequestURI(), k));
            if (r == null) { error(ex, 404, "not_found", null, "no such endpoint"); return; }
            if (r.body() == null) ex.sendResponseHeaders(r.status(), -1);
            else send(ex, r.status(), r.body());
            return;
        }
        if (path.equals(InternalPaths.DRAIN) && method.equals("POST")) {
            draining = true;
            LOG.info("drain requested: this SFU takes no new participants");
            send(ex, 202, Map.of("state", "DRAINING"));
            return;
        }
        if (path.equals(InternalPaths.STATE) && method.equals("GET")) {
            Map<String, Object> s = new LinkedHashMap<>(workers.state());
            s.put("state", draining ? "DRAINING" : "ACTIVE");
            s.put("relays", relays.state());
            s.put("load", Map.of("ingress_bps", metrics.ingressBps(), "egress_bps", metrics.egressBps(),
                    "packets_per_second", metrics.packetsPerSecond()));
            send(ex, 200, s);
            return;
        }
        if (path.equals(InternalPaths.BASE + "/test/loss") && method.equals("POST") && testHooks) {
            JsonNode body = JsonFields.body(tree(ex));
            int permille = (int) Math.round(JsonFields.optionalNumber(body, "egress_loss_percent", "", 0, 0, 100) * 10);
            int ingress = (int) Math.round(JsonFields.optionalNumber(body, "ingress_loss_percent", "", 0, 0, 100) * 10);
            boolean feedback = JsonFields.optionalBool(body, "transport_feedback", "", true);
            for (MediaWorker w : workers.workers()) {
                w.router().setLossPermille(permille);
                w.router().setIngressLossPermille(ingress);
                w.router().setTransportFeedbackEnabled(feedback);
            }
            send(ex, 200, Map.of("egress_loss_permille", permille, "ingress_loss_permille", ingress));
            return;
        }
        if (path.equals(KeptMediaPaths.PATH) && method.equals("POST") && testHooks) {
            send(ex, 200, kept.mark(JsonFields.body(tree(ex))));
            return;
        }
        if (path.equals(InternalPaths.BASE + "/test/link") && method.equals("POST") && testHooks) {
            testLink(ex);
            return;
        }
        // /internal/v1/meetings/{mid}/tracks, /internal/v1/meetings/{mid}/participants/{pid}[/subscriptions]
        String[] seg = path.substring(InternalPaths.BASE.length() + 1).split("/");
        if (seg.length == 3 && seg[0].equals("meetings") && seg[2].equals("tracks") && method.equals("GET")) {
            long epoch = queryLong(ex.getRequestURI(), "controller_epoch");
            ApiMdc.put(seg[1], null, epoch);
            send(ex, 200, relays.tracks(seg[1], epoch)); // a new owner re-learns the tracks its relays carry
            return;
        }
        if (seg.length >= 4 && seg[0].equals("meetings") && seg[2].equals("participants")) {
            String mid = seg[1], pid = seg[3];
            if (seg.length == 4 && method.equals("DELETE")) {
                long epoch = queryLong(ex.getRequestURI(), "controller_epoch");
                ApiMdc.put(mid, pid, epoch);
                Router router = existing(mid);    // an unknown meeting is not placed just to be refused
                if (testHooks && kept.keepsOnRemoval(router, mid, pid, epoch)) { ex.sendResponseHeaders(204, -1); return; }
                router.call(() -> { router.control().removeParticipant(mid, pid, epoch); return null; });
                LOG.info("participant released");
                ex.sendResponseHeaders(204, -1);
                return;
            }
            if (seg.length == 5 && seg[4].equals("subscriptions") && method.equals("PUT")) {
                UpdateSubscriptionsRequest req = RequestBodies.updateSubscriptions(tree(ex));
                ApiMdc.put(mid, pid, req.controllerEpoch());
                Router router = existing(mid);
                UpdateSubscriptionsResponse res = router.call(() -> new UpdateSubscriptionsResponse(
                        router.control().updateSubscriptions(mid, pid, req.controllerEpoch(), req.tracks()),
                        router.control().slotVersion(mid, pid)));
                send(ex, 200, res);
                return;
            }
        }
        error(ex, 404, "not_found", null, "no such endpoint");
    }

    private void createTransport(HttpExchange ex) throws IOException {
        // all checked before the ticket is used up: a malformed request changes nothing and can be retried
        CreateTransportRequest req = RequestBodies.createTransport(tree(ex));
        ApiMdc.put(req.meetingId(), req.participantId(), req.controllerEpoch());
        if (!PublishSource.valid(req.sources())) {
            error(ex, 400, "bad_request", null, "sources: at most 16 of {mid, source: microphone|camera|screen}");
            return;
        }
        if (req.grant() != null && !req.grant().participantId().equals(req.participantId())) {
            error(ex, 400, "bad_request", null, "grant.participant_id: must be the transport's participant_id");
            return;
        }
        ConnectTicketClaims c;
        try {
            c = tickets.verifyAndConsume(req.connectTicket(), podName);
        } catch (TicketRejectedException e) {
            error(ex, 401, "bad_ticket", null, e.getMessage());
            return;
        }
        if (!c.mid().equals(req.meetingId()) || !c.pid().equals(req.participantId()) || c.gen() != req.transportGeneration()) {
            error(ex, 401, "bad_ticket", null, "ticket is for another participant or generation");
            return;
        }
        boolean publish = req.kind() == TransportKind.PUBLISH;
        Router router = workers.workerFor(req.meetingId()).router();
        MeetingControl.TransportResult r = router.call(() -> {
            var made = router.control().createTransport(req.meetingId(), req.participantId(),
                    req.transportGeneration(), req.controllerEpoch(), publish, req.sdpOffer(), req.grant(), req.eventsUrl(),
                    req.sources(), req.audioTopN());
            if (!publish) router.control().readsSlotDeltas(req.meetingId(), req.participantId(), Boolean.TRUE.equals(req.slotDeltas()));
            return made;
        });
        LOG.info("transport {} created: {}", r.transportId(), publish ? "publish" : "subscribe");
        send(ex, 200, publish ? new CreateTransportResponse(r.transportId(), r.answer(), null)
                : new CreateTransportResponse(r.transportId(), r.answer(), r.slots(), r.slotVersion()));
    }

    /**
     * TEST ONLY ({@code PARLEY_SFU_TEST_HOOKS=true}): {@code {meeting_id, participant_id, capacity_kbps, delay_ms,
     * loss_percent}} shapes what the SFU sends to that subscriber through an emulated path (docs/bwe.md §5).
     */
    private void testLink(HttpExchange ex) throws IOException {
        JsonNode body = JsonFields.body(tree(ex));
        String mid = JsonFields.text(body, "meeting_id", ""), pid = JsonFields.text(body, "participant_id", "");
        long kbps = JsonFields.optionalInteger(body, "capacity_kbps", "", 0, 0, Long.MAX_VALUE / 1000);
        int delayMs = (int) JsonFields.optionalInteger(body, "delay_ms", "", 0, 0, 10_000);
        double loss = JsonFields.optionalNumber(body, "loss_percent", "", 0, 0, 100);
        Router router = existing(mid);
        boolean known = router.call(() -> router.control().setTestLink(mid, pid, kbps * 1000, delayMs, loss));
        if (!known) { error(ex, 404, "not_found", null, "unknown participant"); return; }
        send(ex, 200, Map.of("capacity_kbps", kbps, "delay_ms", delayMs, "loss_percent", loss));
    }

    private void putGrants(HttpExchange ex) throws IOException {
        PutGrantsRequest req = RequestBodies.putGrants(tree(ex));
        ApiMdc.put(req.meetingId(), null, req.controllerEpoch());
        Router router = workers.workerFor(req.meetingId()).router();
        Map<String, Long> acks = router.call(() -> router.control().putGrants(req.meetingId(), req.controllerEpoch(), req.grants()));
        List<GrantAck> list = new ArrayList<>();
        acks.forEach((pid, v) -> list.add(new GrantAck(pid, v)));
        LOG.debug("grants put: {}", list.size());
        send(ex, 200, new PutGrantsResponse(list));
    }

    /**
     * Several meetings' grants in one request and one hop to each worker that holds some of them. Each meeting is fenced on its own
     * epoch exactly as {@code PUT /grants} would fence it; a rejected meeting gets its error in its result and
     * the others are still applied. A malformed entry anywhere refuses the whole request before any is applied.
     */
    private void putGrantBatch(HttpExchange ex) throws IOException {
        PutGrantBatchRequest req = RequestBodies.putGrantBatch(tree(ex));
        // several meetings: each gets the MDC on its own debug line below; one hop per worker with that worker's meetings; the results go back in request order
        Map<MediaWorker, List<Integer>> byWorker = new LinkedHashMap<>();
        for (int i = 0; i < req.meetings().size(); i++) {
            byWorker.computeIfAbsent(workers.workerFor(req.meetings().get(i).meetingId()), w -> new ArrayList<>()).add(i);
        }
        PutGrantBatchResponse.MeetingResult[] ordered = new PutGrantBatchResponse.MeetingResult[req.meetings().size()];
        for (Map.Entry<MediaWorker, List<Integer>> e : byWorker.entrySet()) {
            Router router = e.getKey().router();
            router.call(() -> {
                for (int i : e.getValue()) ordered[i] = applyGrants(router, req.meetings().get(i));
                return null;
            });
        }
        List<PutGrantBatchResponse.MeetingResult> results = List.of(ordered);
        for (int i = 0; i < results.size() && LOG.isDebugEnabled(); i++) { // results are in request order
            PutGrantsRequest m = req.meetings().get(i);
            ApiMdc.put(m.meetingId(), null, m.controllerEpoch());
            InternalError refused = results.get(i).error();
            LOG.debug("grant batch: {}", refused == null ? "applied" : "refused: " + refused.code());
        }
        send(ex, 200, new PutGrantBatchResponse(results));
    }

    /** One meeting of a grant batch, fenced on its own epoch (on its worker's thread). */
    private static PutGrantBatchResponse.MeetingResult applyGrants(Router router, PutGrantsRequest m) {
        try {
            List<GrantAck> acks = new ArrayList<>();
            router.control().putGrants(m.meetingId(), m.controllerEpoch(), m.grants()).forEach((pid, v) -> acks.add(new GrantAck(pid, v)));
            return PutGrantBatchResponse.MeetingResult.applied(m.meetingId(), acks);
        } catch (ControlException e) {
            return PutGrantBatchResponse.MeetingResult.rejected(m.meetingId(), new InternalError(code(e), highestEpoch(e), e.getMessage()));
        }
    }

    /** The worker of a meeting that was placed; else worker 0, whose control answers "not found" as before. */
    private Router existing(String meetingId) {
        return workers.find(meetingId).orElse(workers.worker(0)).router();
    }

    private static long queryLong(URI uri, String key) {
        String q = uri.getRawQuery();
        if (q != null) {
            for (String kv : q.split("&")) {
                String[] p = kv.split("=", 2);
                if (p.length == 2 && p[0].equals(key)) {
                    try {
                        return Long.parseLong(p[1]);
                    } catch (NumberFormatException e) {
                        throw new JsonFields.Invalid(key + ": query parameter must be an integer");
                    }
                }
            }
        }
        throw new JsonFields.Invalid(key + ": query parameter required");
    }

    /**
     * The request body as a JSON tree ({@code MissingNode} when empty); JacksonException when it is not JSON. Jackson
     * guesses UTF-16/32 from leading NUL bytes and reports bad code units as a plain {@code CharConversionException},
     * which is no JacksonException: without the catch it left the handler and the client got no answer at all
     * (found by {@code InternalApiFuzzTest}).
     */
    private JsonNode tree(HttpExchange ex) throws IOException {
        byte[] b = body(ex);
        try {
            return json.readTree(b);
        } catch (java.io.CharConversionException notText) {
            throw new JsonFields.Invalid("body: not valid JSON");
        }
    }

    private static byte[] body(HttpExchange ex) throws IOException {
        try (InputStream in = ex.getRequestBody()) {
            byte[] b = in.readNBytes(MAX_BODY + 1);
            if (b.length > MAX_BODY) throw new JsonFields.Invalid("body: larger than " + MAX_BODY / 1024 + " KiB");
            return b;
        }
    }

    private void send(HttpExchange ex, int status, Object body) throws IOException {
        byte[] b = json.writeValueAsBytes(body);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }

    /** The HTTP status for a control refusal: the media plane knows nothing of HTTP (docs/internal-api.md errors). */
    static int status(ControlException e) {
        return switch (e) {
            case ControlException.StaleEpoch x -> 409;
            case ControlException.StaleGeneration x -> 409;
            case ControlException.NotFound x -> 404;
            case ControlException.Invalid x -> 400;
        };
    }

    static String code(ControlException e) {
        return switch (e) {
            case ControlException.StaleEpoch x -> "stale_epoch";
            case ControlException.StaleGeneration x -> "stale_generation";
            case ControlException.NotFound x -> "not_found";
            case ControlException.Invalid x -> "bad_request";
        };
    }

    private static Long highestEpoch(ControlException e) {
        return e instanceof ControlException.StaleEpoch s ? s.highestEpoch : null;
    }

    private void error(HttpExchange ex, int status, String code, Long highestEpoch, String detail) throws IOException {
        byte[] b = json.writeValueAsBytes(new InternalError(code, highestEpoch, detail));
        ex.getResponseHeaders().set("Content-Type", "application/problem+json");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }

    private static void text(HttpExchange ex, int status, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }

    @Override
    public void close() {
        pause(false);
        server.stop(0);
        executor.shutdownNow();
        kept.close();
    }
}
