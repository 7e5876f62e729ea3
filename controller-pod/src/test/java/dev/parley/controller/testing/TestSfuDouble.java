package dev.parley.controller.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.jwk.ECKey;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.parley.platform.etcd.EtcdKeys;
import dev.parley.platform.etcd.ProcessLease;
import dev.parley.platform.etcd.Registrar;
import dev.parley.platform.etcd.SfuEntry;
import dev.parley.platform.grant.Grant;
import dev.parley.platform.grant.GrantAck;
import dev.parley.platform.grant.PutGrantBatchRequest;
import dev.parley.platform.internal.PutGrantBatchResponse;
import dev.parley.platform.grant.PutGrantsRequest;
import dev.parley.platform.grant.PutGrantsResponse;
import dev.parley.platform.internal.CreateTransportRequest;
import dev.parley.platform.internal.CreateTransportResponse;
import dev.parley.platform.internal.InternalError;
import dev.parley.platform.internal.UpdateSubscriptionsRequest;
import dev.parley.platform.internal.TransportKind;
import dev.parley.platform.internal.UpdateSubscriptionsResponse;
import dev.parley.platform.ticket.ConnectTicketClaims;
import dev.parley.platform.ticket.TicketRejectedException;
import dev.parley.platform.ticket.TicketVerifier;
import io.etcd.jetcd.Client;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * TEST DOUBLE of an SFU's internal API (not the real sfu-pod): it implements exactly the control-plane
 * contract the controller depends on (docs/internal-api.md): grants (one meeting, or a batch of meetings each
 * fenced on its own epoch) with epoch fencing, version ordering and expiry on its own monotonic clock; transports that require a valid single-use ticket and
 * an unexpired grant (the SDP answer is a placeholder, no media); participant removal. It registers in
 * etcd like a real SFU.
 */
public final class TestSfuDouble implements AutoCloseable {
    private final ObjectMapper json = new ObjectMapper();
    private final HttpServer http;
    private final String pod;
    private final String secret;
    private final TicketVerifier tickets;
    private final ProcessLease lease;
    private final Registrar registrar;
    private volatile String state = SfuEntry.ACTIVE;
    private volatile double stress;
    private volatile boolean dropGrants;
    private volatile boolean batchEndpoint = true;
    /** Meeting whose grant requests are answered only once {@link #heldLatch} opens (null: answer at once). */
    private volatile String heldMeeting;
    private volatile java.util.concurrent.CountDownLatch heldLatch;

    /** meeting → highest epoch seen. */
    public final Map<String, Long> highestEpoch = new ConcurrentHashMap<>();
    /** meeting/participant → held grant and its expiry (nanoTime). */
    public final Map<String, Held> grants = new ConcurrentHashMap<>();
    public final List<Long> refusedEpochs = new CopyOnWriteArrayList<>();
    public final List<String> removed = new CopyOnWriteArrayList<>();
    /** Single-meeting {@code PUT /grants} requests. */
    public final AtomicInteger grantPuts = new AtomicInteger();
    /** {@code PUT /grants/batch} requests and the meeting entries they carried. */
    public final AtomicInteger batchPuts = new AtomicInteger();
    public final AtomicInteger batchMeetings = new AtomicInteger();
    public final AtomicInteger transportsCreated = new AtomicInteger();
    /** Transport requests with a valid ticket and grant, and subscription updates, as received (newest last). */
    public final List<CreateTransportRequest> transportRequests = new CopyOnWriteArrayList<>();
    public final List<UpdateSubscriptionsRequest> subscriptionRequests = new CopyOnWriteArrayList<>();
    /** The slot map version subscribe answers and subscription updates report (as the SFU's {@code slot_version}). */
    public volatile long slotVersion = 1_000;

    public record Held(Grant grant, long expiresAtNanos) {
        public boolean valid() {
            return System.nanoTime() < expiresAtNanos;
        }
    }

    /** The MediaRegion it registers in (and says it is in, as a real SFU's entry does). */
    private final String region;

    public TestSfuDouble(String pod, String region, Client etcd, ECKey ticketPublicKey, String secret) throws IOException {
        this.pod = pod;
        this.secret = secret;
        this.tickets = new TicketVerifier(ticketPublicKey);
        this.http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        http.createContext("/internal/v1/", this::handle);
        http.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        http.start();
        try {
            this.lease = new ProcessLease(etcd, 6).start(); // generous: a starved test machine must not drop the entry
        } catch (RuntimeException e) {
            http.stop(0); // the caller may try again: leave no listener behind
            throw e;
        }
        this.region = region;
        this.registrar = new Registrar(etcd, lease, EtcdKeys.sfu(region, pod), this::entry, json, Duration.ofMillis(300)).start();
    }

    private SfuEntry entry() {
        return new SfuEntry(pod, region, state, baseUrl(), "127.0.0.1", 0, 0,
                new SfuEntry.SfuLoad(0, 0, 0, transportsCreated.get(), 0, highestEpoch.size(), stress),
                System.currentTimeMillis());
    }

    public String pod() {
        return pod;
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + http.getAddress().getPort();
    }

    public void setDraining() {
        state = SfuEntry.DRAINING;
        registrar.putNow();
    }

    public void setStress(double s) {
        stress = s;
        registrar.putNow();
    }

    /** Simulates a partition from the controller: grant pushes time out (connection accepted, no answer). */
    public void dropGrants(boolean drop) {
        dropGrants = drop;
    }

    /** An SFU of an older version: {@code PUT /grants/batch} answers 404. */
    public void batchEndpoint(boolean supported) {
        batchEndpoint = supported;
    }

    /**
     * Grant requests (single or batch) that carry this meeting are applied and answered only after
     * {@code release} opens: the answer of one push can be held while the test arranges what follows it.
     */
    public void holdAnswersFor(String meetingId, java.util.concurrent.CountDownLatch release) {
        heldLatch = release;
        heldMeeting = meetingId;
    }

    private void waitIfHeld(byte[] body) throws InterruptedException {
        String m = heldMeeting;
        java.util.concurrent.CountDownLatch l = heldLatch;
        if (m != null && l != null && new String(body, java.nio.charset.StandardCharsets.UTF_8).contains(m)) {
            l.await(30, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    public Held held(String meetingId, String participantId) {
        return grants.get(meetingId + "/" + participantId);
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String auth = ex.getRequestHeaders().getFirst("Authorization");
            if (!("Bearer " + secret).equals(auth)) {
                send(ex, 401, new InternalError("unauthorized", null, null));
                return;
            }
            String path = ex.getRequestURI().getPath();
            String method = ex.getRequestMethod();
            byte[] body = ex.getRequestBody().readAllBytes();
            if (path.equals("/internal/v1/grants") && method.equals("PUT")) {
                grantPuts.incrementAndGet();
                waitIfHeld(body);
                if (dropGrants) {
                    Thread.sleep(2000);
                    return;
                }
                PutGrantBatchResponse.MeetingResult r = putGrants(json.readValue(body, PutGrantsRequest.class));
                if (r.error() != null) {
                    send(ex, 409, r.error());
                } else {
                    send(ex, 200, new PutGrantsResponse(r.acks()));
                }
            } else if (path.equals("/internal/v1/grants/batch") && method.equals("PUT") && batchEndpoint) {
                batchPuts.incrementAndGet();
                waitIfHeld(body);
                if (dropGrants) {
                    Thread.sleep(2000);
                    return;
                }
                List<PutGrantBatchResponse.MeetingResult> results = new java.util.ArrayList<>();
                for (PutGrantsRequest m : json.readValue(body, PutGrantBatchRequest.class).meetings()) {
                    batchMeetings.incrementAndGet();
                    results.add(putGrants(m)); // each meeting fenced on its own epoch
                }
                send(ex, 200, new PutGrantBatchResponse(results));
            } else if (path.equals("/internal/v1/transports") && method.equals("POST")) {
                createTransport(ex, json.readValue(body, CreateTransportRequest.class));
            } else if (path.startsWith("/internal/v1/meetings/") && method.equals("DELETE")) {
                String[] parts = path.split("/");
                removed.add(parts[4] + "/" + parts[6]);
                grants.remove(parts[4] + "/" + parts[6]);
                ex.sendResponseHeaders(204, -1);
            } else if (path.endsWith("/subscriptions") && method.equals("PUT")) {
                subscriptionRequests.add(json.readValue(body, UpdateSubscriptionsRequest.class));
                send(ex, 200, new UpdateSubscriptionsResponse(List.of(), slotVersion));
            } else {
                send(ex, 404, new InternalError("not_found", null, null));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized PutGrantBatchResponse.MeetingResult putGrants(PutGrantsRequest r) {
        long highest = highestEpoch.getOrDefault(r.meetingId(), 0L);
        if (r.controllerEpoch() < highest) {
            refusedEpochs.add(r.controllerEpoch());
            return PutGrantBatchResponse.MeetingResult.rejected(r.meetingId(),
                    new InternalError(InternalError.STALE_EPOCH, highest, "older controller epoch"));
        }
        if (r.controllerEpoch() > highest) {
            // a newer epoch replaces all state of the older one
            grants.keySet().removeIf(k -> k.startsWith(r.meetingId() + "/"));
            highestEpoch.put(r.meetingId(), r.controllerEpoch());
        }
        long now = System.nanoTime();
        java.util.ArrayList<GrantAck> acks = new java.util.ArrayList<>();
        for (Grant g : r.grants()) {
            String k = r.meetingId() + "/" + g.participantId();
            Held cur = grants.get(k);
            if (cur == null || g.version() >= cur.grant().version()) {
                grants.put(k, new Held(g, now + Duration.ofMillis(g.ttlMs()).toNanos()));
                acks.add(new GrantAck(g.participantId(), g.version()));
            } else {
                acks.add(new GrantAck(g.participantId(), cur.grant().version()));
            }
        }
        return PutGrantBatchResponse.MeetingResult.applied(r.meetingId(), acks);
    }

    private void createTransport(HttpExchange ex, CreateTransportRequest r) throws IOException {
        ConnectTicketClaims c;
        try {
            c = tickets.verifyAndConsume(r.connectTicket(), pod);
        } catch (TicketRejectedException e) {
            send(ex, 401, new InternalError("bad_ticket", null, e.code()));
            return;
        }
        if (!c.mid().equals(r.meetingId()) || !c.pid().equals(r.participantId()) || c.gen() != r.transportGeneration()) {
            send(ex, 401, new InternalError("bad_ticket", null, "ticket does not match the request"));
            return;
        }
        long highest = highestEpoch.getOrDefault(r.meetingId(), 0L);
        if (r.controllerEpoch() < highest) {
            send(ex, 409, new InternalError(InternalError.STALE_EPOCH, highest, null));
            return;
        }
        Held h = held(r.meetingId(), r.participantId());
        if (h == null || !h.valid() || !h.grant().subscribe()) {
            send(ex, 403, new InternalError("no_grant", null, "no valid grant"));
            return;
        }
        transportsCreated.incrementAndGet();
        transportRequests.add(r);
        send(ex, 200, new CreateTransportResponse("t-" + transportsCreated.get(),
                "v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=test-double\r\nt=0 0\r\n", List.of(),
                r.kind() == TransportKind.SUBSCRIBE ? slotVersion : null));
    }

    private void send(HttpExchange ex, int status, Object body) throws IOException {
        byte[] b = json.writeValueAsBytes(body);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }

    /** The process is gone but its registry lease has not run out yet: connections are refused. */
    public void stopAnswering() {
        http.stop(0);
    }

    /** Crash: stop answering and let the registry entry vanish with the lease. */
    public void kill() {
        http.stop(0);
        lease.haltKeepAlive();
    }

    @Override
    public void close() {
        http.stop(0);
        registrar.close();
        lease.close();
    }

    static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
