package dev.parley.bench.relay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.jwk.ECKey;
import dev.parley.bench.media.ClientTransport;
import dev.parley.bench.media.Publisher;
import dev.parley.bench.media.Subscriber;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.platform.ticket.TicketSigner;
import dev.parley.sfu.SfuServer;
import dev.parley.sfu.config.SfuConfig;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Two real SFU servers on loopback (in this JVM, one media worker each) and the owner controller's part toward
 * them: connect tickets, grants renewed every second, relay requests (accept on the receiver, send on the origin)
 * with a fresh SRTP key per relay. Publishers and subscribers are the load client's media-core WebRTC clients (ICE,
 * DTLS-SRTP, RTP). Used by the relay tests and {@link RelayBench}.
 */
public final class RelayLab implements AutoCloseable {
    public static final String SECRET = "relay-lab-secret-0123456789abcdef";
    public static final long EPOCH = 5;
    private static final SecureRandom RANDOM = new SecureRandom();
    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();
    private final TicketSigner signer;
    public final SfuServer a, b;
    /** meeting → sfu → participants whose grants are renewed. */
    private final Map<SfuServer, Map<String, Set<String>>> renewed = new ConcurrentHashMap<>();
    private final Thread renewer;
    private long version = 1;
    private volatile boolean closed;

    public RelayLab() throws Exception {
        ECKey key = TicketKeys.generate();
        signer = new TicketSigner(key);
        a = new SfuServer(config("sfu-a", key));
        b = new SfuServer(config("sfu-b", key));
        renewer = Thread.ofPlatform().daemon().name("relay-lab-grants").start(this::renewLoop);
    }

    private static SfuConfig config(String pod, ECKey key) {
        return new SfuConfig(pod, "local", "127.0.0.1", "127.0.0.1", 0, 0, 0, SECRET, key.toPublicJWK().toJSONString(), "",
                5, false, 4_000_000, true, SfuConfig.DEFAULT_CONSENT_TIMEOUT_MS, 1);
    }

    public static String pod(SfuServer s, RelayLab lab) { return s == lab.a ? "sfu-a" : "sfu-b"; }

    /** Connects a publisher to {@code sfu} (publish transport, grant renewed from now on). */
    public Publisher publish(SfuServer sfu, String meeting, String pid) throws IOException {
        Publisher p = new Publisher(pid, true);
        ClientTransport t = new ClientTransport(p);
        p.transport = t;
        t.connect(transport(sfu, meeting, pid, "publish", p.offer(t)).get("sdp_answer").asText());
        return p;
    }

    /** A subscriber and what reached it: RTP packets by kind (payload type of its slots: 111 audio, 96 video). */
    public record Receiver(Subscriber subscriber, java.util.concurrent.atomic.AtomicLong audio, java.util.concurrent.atomic.AtomicLong video,
                           java.util.concurrent.atomic.AtomicLong lastVideo) {
        /** SSRC of the video slot's last packet. */
        public int lastVideoSsrc() { return (int) (lastVideo.get() >>> 16); }
        /** Its sequence number. */
        public int lastVideoSeq() { return (int) (lastVideo.get() & 0xFFFF); }
    }

    /** Connects a subscriber with {@code slots} audio + video slots to {@code sfu}. */
    public Receiver subscribe(SfuServer sfu, String meeting, String pid, int slots, org.HdrHistogram.Recorder latency) throws IOException {
        Subscriber s = new Subscriber(pid, slots, latency);
        var audio = new java.util.concurrent.atomic.AtomicLong();
        var video = new java.util.concurrent.atomic.AtomicLong();
        var lastVideo = new java.util.concurrent.atomic.AtomicLong();
        ClientTransport t = new ClientTransport((tr, buf, len, now) -> {
            if (len >= 12 && !dev.parley.media.rtp.RtpPacket.isRtcp(buf, 0, len)) {
                int pt = dev.parley.media.rtp.RtpPacket.payloadType(buf, 0);
                if (pt == 111) audio.incrementAndGet();
                else if (pt == 96) {
                    video.incrementAndGet();
                    lastVideo.set(((dev.parley.media.rtp.RtpPacket.ssrc(buf, 0) & 0xFFFFFFFFL) << 16) | dev.parley.media.rtp.RtpPacket.sequence(buf, 0));
                }
            }
            s.onSrtp(tr, buf, len, now);
        });
        s.transport = t;
        t.connect(transport(sfu, meeting, pid, "subscribe", s.offer(t)).get("sdp_answer").asText());
        return new Receiver(s, audio, video, lastVideo);
    }

    /**
     * A subscriber with one audio and one video slot whose packets go to {@code sink} as they arrive, waiting
     * {@code dtlsDelayMillis} between ICE and the DTLS handshake (a slow handshake, as a busy browser's).
     */
    public Subscriber subscribeSlowly(SfuServer sfu, String meeting, String pid, ClientTransport.MediaSink sink, long dtlsDelayMillis)
            throws IOException {
        Subscriber s = new Subscriber(pid, 1, new org.HdrHistogram.Recorder(3));
        ClientTransport t = new ClientTransport(sink);
        t.dtlsDelayMillis = dtlsDelayMillis;
        s.transport = t;
        t.connect(transport(sfu, meeting, pid, "subscribe", s.offer(t)).get("sdp_answer").asText());
        return s;
    }

    private JsonNode transport(SfuServer sfu, String meeting, String pid, String kind, String offer) {
        ObjectNode n = json.createObjectNode();
        n.put("meeting_id", meeting).put("participant_id", pid).put("transport_generation", 1).put("controller_epoch", EPOCH)
                .put("kind", kind).put("connect_ticket", signer.issue(meeting, pid, 1, pod(sfu, this), "dk", Duration.ofSeconds(30)).token())
                .put("sdp_offer", offer);
        n.set("grant", grant(pid, EPOCH));
        JsonNode r = call(sfu, "POST", "/internal/v1/transports", n, 200);
        renewed.computeIfAbsent(sfu, k -> new ConcurrentHashMap<>()).computeIfAbsent(meeting, k -> ConcurrentHashMap.newKeySet()).add(pid);
        return r;
    }

    public synchronized ObjectNode grant(String pid, long epoch) {
        ObjectNode g = json.createObjectNode();
        g.put("participant_id", pid).put("version", version++).put("controller_epoch", epoch).put("subscribe", true).put("ttl_ms", 3000);
        g.putObject("publish").put("audio", true).put("video", true).put("screen", false);
        return g;
    }

    /** A fresh relay key: AES-GCM master key + salt, base64 (what the controller would issue). */
    public static ObjectNode srtpKey(ObjectMapper json) {
        byte[] k = new byte[28];
        RANDOM.nextBytes(k);
        ObjectNode s = json.createObjectNode();
        s.put("profile", "AEAD_AES_128_GCM").put("key", Base64.getEncoder().encodeToString(k));
        return s;
    }

    /** One relayed track: its id, kind, simulcast layer count and the layers to cross. */
    public record TrackLayers(String trackId, String kind, int simulcastLayers, List<Integer> layers) {}

    /**
     * The controller's two calls for one relay: the receiver accepts (wire SSRCs, endpoint), then the origin sends.
     * Returns {in: the receiver's answer, out: the origin's answer}.
     */
    public Map<String, JsonNode> relay(String relayId, String meeting, SfuServer origin, SfuServer receiver, List<TrackLayers> tracks) {
        ObjectNode key = srtpKey(json);
        ObjectNode in = json.createObjectNode();
        in.put("relay_id", relayId).put("meeting_id", meeting).put("controller_epoch", EPOCH).put("origin_sfu", pod(origin, this));
        in.set("srtp", key);
        ArrayNode ts = in.putArray("tracks");
        for (TrackLayers t : tracks) {
            ObjectNode o = ts.addObject().put("track_id", t.trackId()).put("kind", t.kind()).put("simulcast_layers", t.simulcastLayers());
            ArrayNode l = o.putArray("layers");
            t.layers().forEach(l::add);
        }
        JsonNode accepted = call(receiver, "POST", "/internal/v1/relays/in", in, 200);
        ObjectNode out = json.createObjectNode();
        out.put("relay_id", relayId).put("meeting_id", meeting).put("controller_epoch", EPOCH).put("target_sfu", pod(receiver, this))
                .put("rtcp_ssrc", accepted.get("rtcp_ssrc").asLong());
        out.putObject("target").put("address", accepted.get("address").asText()).put("udp_port", accepted.get("udp_port").asInt());
        out.set("srtp", key);
        out.set("tracks", accepted.get("tracks"));
        JsonNode sent = call(origin, "POST", "/internal/v1/relays/out", out, 200);
        return Map.of("in", accepted, "out", sent);
    }

    public JsonNode call(SfuServer sfu, String method, String path, JsonNode body, int expect) {
        HttpResponse<String> r = raw(sfu, method, path, body);
        if (r.statusCode() != expect) throw new AssertionError(method + " " + path + " → " + r.statusCode() + " " + r.body());
        try {
            return r.body().isEmpty() ? json.nullNode() : json.readTree(r.body());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public HttpResponse<String> raw(SfuServer sfu, String method, String path, JsonNode body) {
        try {
            HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sfu.internalPort() + path))
                    .header("Authorization", "Bearer " + SECRET).header("Content-Type", "application/json")
                    .timeout(Duration.ofSeconds(20))
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body))).build();
            return http.send(req, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public String metrics(SfuServer sfu) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sfu.internalPort() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The value of one Prometheus series (exact name with labels), 0 if absent. */
    public static double series(String metrics, String nameWithLabels) {
        for (String line : metrics.split("\n")) {
            if (line.startsWith(nameWithLabels + " ")) return Double.parseDouble(line.substring(nameWithLabels.length() + 1).trim());
        }
        return 0;
    }

    public JsonNode state(SfuServer sfu) { return call(sfu, "GET", "/internal/v1/state", null, 200); }

    /** Stops renewing the grants of {@code pid} (they expire within 3 s). */
    public void stopRenewing(String pid) { for (Map<String, Set<String>> m : renewed.values()) for (Set<String> s : m.values()) s.remove(pid); }

    private void renewLoop() {
        while (!closed) {
            try {
                Thread.sleep(1000);
                for (Map.Entry<SfuServer, Map<String, Set<String>>> e : renewed.entrySet()) {
                    for (Map.Entry<String, Set<String>> m : e.getValue().entrySet()) {
                        if (m.getValue().isEmpty()) continue;
                        ObjectNode body = json.createObjectNode().put("meeting_id", m.getKey()).put("controller_epoch", EPOCH);
                        ArrayNode gs = body.putArray("grants");
                        for (String pid : m.getValue()) gs.add(grant(pid, EPOCH));
                        raw(e.getKey(), "PUT", "/internal/v1/grants", body);
                    }
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                if (!closed) System.err.println("grant renewal failed: " + e.getMessage());
            }
        }
    }

    /** CPU time (ns) of an SFU's media worker thread(s). */
    public static long workerCpuNanos(SfuServer sfu) {
        long n = 0;
        var mx = ManagementFactory.getThreadMXBean();
        for (var w : sfu.workers().workers()) {
            long id = w.router().call(() -> Thread.currentThread().threadId());
            n += Math.max(0, mx.getThreadCpuTime(id));
        }
        return n;
    }

    /** Drives publishers (10 ms ticks) and consent checks (every 5 s) on one platform thread until closed. */
    public Thread drive(List<Publisher> pubs, List<Subscriber> subs) {
        List<Publisher> ps = new ArrayList<>(pubs);
        List<Subscriber> ss = new ArrayList<>(subs);
        return Thread.ofPlatform().daemon().name("relay-lab-driver").start(() -> {
            long tick = 0, next = System.nanoTime();
            while (!closed && !Thread.currentThread().isInterrupted()) {
                for (Publisher p : ps) p.tick(tick);
                if (tick % 500 == 0) {
                    for (Publisher p : ps) p.transport.check();
                    for (Subscriber s : ss) s.transport.check();
                }
                tick++;
                next += 10_000_000L;
                long sleep = next - System.nanoTime();
                if (sleep > 0) java.util.concurrent.locks.LockSupport.parkNanos(sleep);
            }
        });
    }

    @Override
    public void close() {
        closed = true;
        renewer.interrupt();
        a.close();
        b.close();
    }
}
