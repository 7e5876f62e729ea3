package dev.parley.controller.relay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.bench.media.ClientTransport;
import dev.parley.bench.media.Publisher;
import dev.parley.bench.media.Subscriber;
import dev.parley.controller.media.SfuSelector;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.WsClient;
import dev.parley.media.rtp.RtpPacket;
import dev.parley.sfu.SfuServer;
import dev.parley.sfu.config.SfuConfig;
import org.HdrHistogram.Recorder;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Shared pieces of the cross-SFU tests: real SFU servers, media-core clients joined through a controller, waits. */
final class RelayTestKit {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private RelayTestKit() {
    }

    static SfuServer sfu(ControllerHarness h, String pod, String region) throws Exception {
        return new SfuServer(new SfuConfig(pod, region, "127.0.0.1", "127.0.0.1", 0, 0, 0, ControllerHarness.INTERNAL_SECRET,
                h.ticketKey.toPublicJWK().toJSONString(), h.etcd.endpoints().get(0), 5, false, 4_000_000, true,
                SfuConfig.DEFAULT_CONSENT_TIMEOUT_MS, 1));
    }

    static JsonNode state(SfuServer s) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.internalPort()
                        + "/internal/v1/state")).header("Authorization", "Bearer " + ControllerHarness.INTERNAL_SECRET).build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    /** The SFU's relays, or an empty array when it does not answer. */
    static JsonNode relays(SfuServer s) {
        try {
            return state(s).get("relays");
        } catch (Exception e) {
            return JSON.createArrayNode();
        }
    }

    static void awaitRegistered(ControllerHarness h, int controller, String... pods) throws InterruptedException {
        SfuSelector sel = h.controllers.get(controller).getBean(SfuSelector.class);
        waitFor(() -> java.util.Arrays.stream(pods).allMatch(p -> sel.get(p).isPresent()), 10_000,
                "SFUs " + String.join(", ", pods) + " in controller " + controller + "'s registry view");
    }

    /** Reserves a transport on {@code controller}, joins its signaling socket and connects one media connection. */
    static WsClient connect(Scenario s, int controller, String[] who, String region, String kind, ClientTransport t, String offer)
            throws Exception {
        var res = region == null ? s.transport(controller, who[0], who[1], 0, "t-" + who[1])
                : s.transportIn(controller, who[0], who[1], 0, "t-" + who[1], region);
        assertThat(res.status()).as(res.raw()).isEqualTo(200);
        WsClient ws = new WsClient(res.text("signaling_endpoint"));
        ws.send("{\"type\":\"join\",\"connect_ticket\":\"" + res.text("connect_ticket") + "\"}");
        assertThat(ws.await("joined", 5000)).isNotNull();
        ws.send(JSON.createObjectNode().put("type", "offer").put("transport", kind).put("sdp", offer).toString());
        JsonNode answer = ws.await("answer", 10_000);
        assertThat(answer).as("answer to the " + kind + " offer").isNotNull();
        t.connect(answer.get("sdp").asText());
        return ws;
    }

    /**
     * A subscriber (one video slot) whose arrivals are counted, with the longest audio gap since {@link Arrivals#mark};
     * arrivals on every transport it opened count (old and new generation during a move, as a listener hears them).
     */
    static final class Arrivals {
        final Subscriber sub;
        final ClientTransport transport;
        final AtomicLong audio = new AtomicLong(), video = new AtomicLong();
        private volatile long lastAudio, maxGap;

        Arrivals(String pid) throws Exception {
            sub = new Subscriber(pid, 1, new Recorder(3));
            transport = newTransport();
            sub.transport = transport;
        }

        /** Another connection of this subscriber (a new transport generation) feeding the same counters. */
        ClientTransport newTransport() throws java.io.IOException {
            return new ClientTransport((tr, buf, len, now) -> {
                if (len >= 12 && !RtpPacket.isRtcp(buf, 0, len)) {
                    int pt = RtpPacket.payloadType(buf, 0);
                    if (pt == 111) {
                        synchronized (this) {
                            long t = System.nanoTime();
                            if (lastAudio != 0 && t - lastAudio > maxGap) maxGap = t - lastAudio;
                            lastAudio = t;
                        }
                        audio.incrementAndGet();
                    } else if (pt == 96) {
                        video.incrementAndGet();
                    }
                }
                sub.onSrtp(tr, buf, len, now);
            });
        }

        String offer() {
            return sub.offer(transport);
        }

        void mark() {
            maxGap = 0;
        }

        /** The longest time between two audio packets since {@link #mark}, or since the last one until now. */
        long maxGapMillis() {
            long open = lastAudio == 0 ? 0 : System.nanoTime() - lastAudio;
            return Math.max(maxGap, open) / 1_000_000;
        }
    }

    /** A participant's new transport generation: its signaling socket, the SFU it is on, its generation. */
    record Moved(WsClient ws, String sfu, long generation) {
    }

    /**
     * Follows a {@code new_generation_required} message on {@code ws} the way the SDK does (parley-client.js
     * {@code newGeneration}): a new transport generation from the controller (fresh Idempotency-Key, the generation the
     * message names as expected), the signaling socket closed and a new one joined with its ticket, the same kind of offer on a new
     * connection, connected (ICE + DTLS) after {@code connectDelayMs}. The caller then moves its media to {@code fresh} and closes the old
     * connection: make-before-break, as the SDK keeps the old peer connection until the new one is connected.
     */
    static Moved follow(Scenario s, ControllerHarness h, String[] who, WsClient ws, String kind, ClientTransport fresh,
                        String offer, long waitMs, long connectDelayMs) throws Exception {
        JsonNode ask = ws.await("new_generation_required", waitMs);
        long expected = ask.path("transport_generation").asLong();
        var res = s.transport(0, who[0], who[1], expected, "t-" + who[1] + "-g" + (expected + 1));
        assertThat(res.status()).as(res.raw()).isEqualTo(200);
        ws.close(); // one signaling socket, reconnected with the new ticket (the SDK's reconnectNow); media stays up
        WsClient next = new WsClient(res.text("signaling_endpoint"));
        next.send("{\"type\":\"join\",\"connect_ticket\":\"" + res.text("connect_ticket") + "\"}");
        assertThat(next.await("joined", 5000)).isNotNull();
        next.send(JSON.createObjectNode().put("type", "offer").put("transport", kind).put("sdp", offer).toString());
        JsonNode answer = next.await("answer", 10_000);
        assertThat(answer).as("answer to the " + kind + " offer of the new generation").isNotNull();
        Thread.sleep(connectDelayMs); // a new path slower to connect (ICE over a slower network): the old one carries meanwhile
        fresh.connect(answer.get("sdp").asText());
        String sfu = h.scalar("SELECT sfu_pod FROM meeting_participants WHERE participant_id = '" + who[1] + "'");
        return new Moved(next, sfu, res.body().path("transport_generation").asLong());
    }

    /** A publisher (three-layer simulcast + Opus) with its transport. */
    static Publisher publisher(String pid) throws Exception {
        Publisher pub = new Publisher(pid, true);
        pub.transport = new ClientTransport(pub);
        return pub;
    }

    /** Ticks the publisher every 10 ms and keeps every transport's consent (a daemon thread; interrupt to stop). */
    static Thread drive(Publisher pub, ClientTransport... others) {
        return Thread.ofPlatform().daemon().start(() -> {
            long tick = 0, next = System.nanoTime();
            while (!Thread.currentThread().isInterrupted()) {
                pub.tick(tick);
                if (tick % 500 == 0) {
                    pub.transport.check();
                    for (ClientTransport t : others) t.check();
                }
                tick++;
                next += 10_000_000L;
                long sleep = next - System.nanoTime();
                if (sleep > 0) java.util.concurrent.locks.LockSupport.parkNanos(sleep);
            }
        });
    }

    /** Keeps a subscriber's connection consented (every 5 s) on its own daemon thread; interrupt to stop. */
    static Thread keepAlive(ClientTransport t) {
        return Thread.ofPlatform().daemon().start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                t.check();
                try {
                    Thread.sleep(5_000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    static void waitFor(BooleanSupplier c, long ms, String what) throws InterruptedException {
        long end = System.currentTimeMillis() + ms;
        while (!c.getAsBoolean()) {
            if (System.currentTimeMillis() > end) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(20);
        }
    }
}
