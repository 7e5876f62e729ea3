package dev.parley.recorder.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.jwk.ECKey;
import dev.parley.platform.grant.Grant;
import dev.parley.platform.grant.PublishRights;
import dev.parley.platform.grant.PutGrantsRequest;
import dev.parley.platform.internal.CreateTransportRequest;
import dev.parley.platform.internal.TransportKind;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.platform.ticket.TicketSigner;
import dev.parley.recorder.sfu.SubscribeBroker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Plays the owner controller toward real SFU processes, with platform-core's own types: ES256 connect tickets,
 * {@code POST /internal/v1/transports}, grant renewals every 500 ms with ttl 3 s (as the controller's GrantService
 * does), revocation by a higher grant version. {@link #recorderBroker} is what the controller's
 * {@code POST /internal/v1/recordings/{job}/subscribe} does for a recorder: a subscribe-only grant for the hidden
 * participant {@code recorder:{job}:{generation}} on the meeting's current SFU.
 */
public final class SfuControlPlane implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    public static final String SECRET = "test-internal-secret";
    private final ECKey key;
    private final TicketSigner signer;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).build();
    private final String meetingId;
    private final long epoch;
    private final Map<String, GrantedParticipant> granted = new ConcurrentHashMap<>();
    private final ScheduledExecutorService renewals = Executors.newSingleThreadScheduledExecutor();
    private volatile SfuProcess meetingSfu;

    /** Keyed by participant id and SFU pod: during a drain a participant is granted on both SFUs. */
    private record GrantedParticipant(String pid, SfuProcess sfu, PublishRights rights, boolean subscribe,
                                      AtomicLong version) {
    }

    public SfuControlPlane(String meetingId, long epoch) {
        this(TicketKeys.generate(), meetingId, epoch);
    }

    /** Another meeting on the same SFUs (same ticket key). */
    public SfuControlPlane otherMeeting(String otherMeetingId, long otherEpoch) {
        SfuControlPlane c = new SfuControlPlane(key, otherMeetingId, otherEpoch);
        c.placeMeetingOn(meetingSfu);
        return c;
    }

    private SfuControlPlane(ECKey key, String meetingId, long epoch) {
        this.key = key;
        this.signer = new TicketSigner(key);
        this.meetingId = meetingId;
        this.epoch = epoch;
        renewals.scheduleWithFixedDelay(this::renewAll, 500, 500, TimeUnit.MILLISECONDS);
    }

    public String ticketPublicJwk() {
        return key.toPublicJWK().toJSONString();
    }

    /** Where new transports of the meeting go (the controller's SFU placement; changed on drain). */
    public void placeMeetingOn(SfuProcess sfu) {
        this.meetingSfu = sfu;
    }

    /** Creates a transport at the meeting's SFU with a grant; returns the SFU's answer body. */
    public JsonNode createTransport(String pid, long generation, TransportKind kind, String offer, PublishRights rights,
                                    boolean subscribe) throws IOException {
        SfuProcess sfu = meetingSfu;
        GrantedParticipant gp = granted.compute(pid + "@" + sfu.pod(), (k, old) -> new GrantedParticipant(pid, sfu,
                rights, subscribe, old == null ? new AtomicLong() : old.version()));
        Grant grant = new Grant(pid, gp.version().incrementAndGet(), epoch, rights, subscribe, Grant.MAX_TTL_MS);
        String ticket = signer.issue(meetingId, pid, generation, sfu.pod(), "test", TicketSigner.MAX_LIFETIME).token();
        CreateTransportRequest req = new CreateTransportRequest(meetingId, pid, generation, epoch, kind, ticket, offer,
                grant, null);
        JsonNode answer = send(sfu, "POST", "/internal/v1/transports", req);
        answer = ((com.fasterxml.jackson.databind.node.ObjectNode) answer).put("sfu_pod", sfu.pod());
        return answer;
    }

    /** The recorder's side of the controller contract, for recording job {@code job} generation {@code gen}. */
    public SubscribeBroker recorderBroker(String job, long gen) {
        String pid = "recorder:" + job + ":" + gen;
        return (transportGeneration, offer) -> {
            JsonNode a = createTransport(pid, transportGeneration, TransportKind.SUBSCRIBE, offer, PublishRights.NONE, true);
            List<SubscribeBroker.Assignment> slots = new ArrayList<>();
            for (JsonNode s : a.path("slot_assignments")) {
                slots.add(new SubscribeBroker.Assignment(s.path("mid").asText(), s.path("participant_id").asText(),
                        s.path("track_id").asText(), s.path("kind").asText()));
            }
            return new SubscribeBroker.Subscription(a.path("sfu_pod").asText(), pid, a.path("sdp_answer").asText(), slots);
        };
    }

    /** What the controller does when a recording stops or its generation is superseded: a revoked grant, now. */
    public void revoke(String pid) throws IOException {
        for (String k : List.copyOf(granted.keySet())) {
            GrantedParticipant gp = k.startsWith(pid + "@") ? granted.remove(k) : null;
            if (gp != null) {
                Grant g = Grant.revoked(pid, gp.version().incrementAndGet(), epoch, Grant.MAX_TTL_MS);
                send(gp.sfu(), "PUT", "/internal/v1/grants", new PutGrantsRequest(meetingId, epoch, List.of(g)));
            }
        }
    }

    private void renewAll() {
        for (GrantedParticipant gp : granted.values()) {
            Grant g = new Grant(gp.pid(), gp.version().incrementAndGet(), epoch, gp.rights(), gp.subscribe(),
                    Grant.MAX_TTL_MS);
            try {
                send(gp.sfu(), "PUT", "/internal/v1/grants", new PutGrantsRequest(meetingId, epoch, List.of(g)));
            } catch (IOException | RuntimeException ex) {
                // the next round retries; an SFU that is gone lets the grant run out
            }
        }
    }

    private JsonNode send(SfuProcess sfu, String method, String path, Object body) throws IOException {
        HttpRequest req = HttpRequest.newBuilder(URI.create(sfu.internalUrl() + path))
                .header("Authorization", "Bearer " + SECRET).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(20))
                .method(method, HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body))).build();
        HttpResponse<String> r;
        try {
            r = http.send(req, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        if (r.statusCode() != 200) {
            throw new IOException(method + " " + path + " → " + r.statusCode() + " " + r.body());
        }
        return JSON.readTree(r.body());
    }

    @Override
    public void close() {
        renewals.shutdownNow();
    }
}
