package dev.parley.sfu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import com.nimbusds.jose.jwk.ECKey;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.platform.ticket.TicketSigner;
import dev.parley.sfu.config.SfuConfig;
import dev.parley.testsupport.browser.Chromium;
import dev.parley.testsupport.web.StaticServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Real headless Chromium ⇄ our SFU ⇄ Chromium. The test plays the controller: it mints connect tickets with the
 * key the SFU trusts, calls the SFU's internal API, and renews grants every second (ttl 3 s).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SfuBrowserIT {
    private static final String SECRET = "test-internal-secret-0123456789";
    private static final String POD = "sfu-it";
    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();
    private final ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor();
    private SfuServer sfu;
    private SfuInternalCalls internal;
    private StaticServer web;
    private Chromium chromium;
    /** Events the SFU posted to events_url (the test plays the owner controller). */
    private final java.util.Queue<JsonNode> events = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private com.sun.net.httpserver.HttpServer eventSink;

    @BeforeAll
    void start() throws Exception {
        ECKey key = TicketKeys.generate();
        internal = new SfuInternalCalls(() -> sfu.internalPort(), SECRET, new TicketSigner(key), POD);
        sfu = new SfuServer(new SfuConfig(POD, "local", "127.0.0.1", "127.0.0.1", 0, 0, 0, SECRET,
                key.toPublicJWK().toJSONString(), "", 5, true, 4_000_000, true));
        String page;
        try (InputStream in = getClass().getResourceAsStream("/web/sfu.html")) {
            page = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        web = StaticServer.start().page("/sfu.html", page);
        chromium = Chromium.launch(Chromium.options().arg("--force-fieldtrials=WebRTC-LegacySimulcastLayerLimit/Disabled/"));
        renewer.scheduleAtFixedRate(internal::renewGrants, 0, 1000, TimeUnit.MILLISECONDS);
        eventSink = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 16);
        eventSink.createContext("/events", ex -> {
            try (ex) {
                if (("Bearer " + SECRET).equals(ex.getRequestHeaders().getFirst("Authorization"))) {
                    events.add(json.readTree(ex.getRequestBody()));
                    ex.sendResponseHeaders(204, -1);
                } else {
                    ex.sendResponseHeaders(401, -1);
                }
            }
        });
        eventSink.start();
    }

    @AfterAll
    void stop() {
        renewer.shutdownNow();
        if (eventSink != null) eventSink.stop(0);
        if (chromium != null) chromium.close();
        if (web != null) web.close();
        if (sfu != null) sfu.close();
    }

    // ------------------------------------------------------------------ tests

    @Test
    void threeParticipantsEachReceiveTheOthers() {
        String meeting = "m-" + UUID.randomUUID();
        List<Peer> peers = new ArrayList<>();
        for (int i = 0; i < 3; i++) peers.add(join(meeting, "p" + i, false, false, 2));
        try {
            for (Peer p : peers) awaitMediaFromAll(p, 2);
            assertThat(stats(peers.get(0).page, "sub").path("protocol").asText()).isEqualTo("udp");
            // a fourth person's view: pairwise media keeps flowing (framesDecoded and audio samples grow)
            for (Peer p : peers) assertGrowing(p, 2);
            // the owner controller heard about every connection and every track
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                assertThat(eventCount(meeting, "transport_connected")).isEqualTo(6);
                assertThat(eventCount(meeting, "track_published")).isEqualTo(6);
            });
            // Chromium's fake microphone beeps: the audio-level extension drives the active-speaker detector
            assertThat(eventCount(meeting, "active_speakers")).isGreaterThan(0);
            // transport-wide-cc was negotiated on the subscribe connections: the browsers send feedback on the
            // sequence numbers the SFU writes, and every block parses (feeds the per-subscriber estimators)
            long feedback = sfu.metrics().sum(m -> m.twccFeedback);
            await().atMost(Duration.ofSeconds(5)).until(() -> sfu.metrics().sum(m -> m.twccFeedback) > feedback + 10);
            assertThat(sfu.metrics().drops("twcc_malformed")).isZero();
            // each subscriber's estimate and forwarded layer: in GET /state per participant, in /metrics aggregated
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                JsonNode mine = null;
                for (JsonNode mm : call("GET", "/internal/v1/state", null, 200).path("meetings")) {
                    if (meeting.equals(mm.path("meeting_id").asText())) mine = mm;
                }
                assertThat(mine).isNotNull();
                for (JsonNode p : mine.path("participants")) {
                    JsonNode cc = p.path("congestion_control");
                    assertThat(cc.path("transport_cc").asBoolean()).as(p.toString()).isTrue();
                    assertThat(cc.path("estimate_bps").asLong()).as(p.toString()).isBetween(30_000L, 10_000_000L);
                    assertThat(cc.path("acked_bps").asLong()).as(p.toString()).isGreaterThan(0);
                    assertThat(p.path("video_layers")).hasSize(2);
                    for (JsonNode l : p.path("video_layers")) {
                        assertThat(l.path("spatial").asInt()).isZero();      // single-encoding publishers
                        assertThat(l.path("width").asInt()).isPositive();
                    }
                }
                String metrics = metricsText();
                assertThat(metrics).containsPattern("(?m)^parley_sfu_subscriber_estimate_bytes_per_second_count [1-9]")
                        .containsPattern("(?m)^parley_sfu_video_slots_forwarding\\{spatial=\"0\"\\} [1-9]")
                        .doesNotContain("participant_id");
            });
        } finally {
            peers.forEach(Peer::close);
        }
    }

    @Test
    void twoParticipantsEachReceiveTheOtherAndSurviveAnIceRestart() throws Exception {
        String meeting = "m-" + UUID.randomUUID();
        long joinedAt = System.nanoTime();
        Peer a = join(meeting, "a", false, false, 1);
        Peer b = join(meeting, "b", false, false, 1);
        try {
            awaitMediaFromAll(a, 1);
            awaitMediaFromAll(b, 1);
            assertGrowing(a, 1);
            assertGrowing(b, 1);

            // transport-cc feedback from the SFU drives each publisher's own estimator. Measured on this machine:
            // with feedback Chromium's availableOutgoingBitrate holds at 0.3-4 Mbit/s; without it the estimate
            // decays ~20 %/s from the REMB value to < 100 kbit/s within 20 s of joining.
            long feedbackBefore = sfu.metrics().sum(m -> m.twccFeedbackSent);
            await().atMost(Duration.ofSeconds(10)).until(() -> sfu.metrics().sum(m -> m.twccFeedbackSent) > feedbackBefore + 20);
            long sinceJoin = System.nanoTime() - joinedAt;
            if (sinceJoin < TimeUnit.SECONDS.toNanos(20)) Thread.sleep(TimeUnit.NANOSECONDS.toMillis(TimeUnit.SECONDS.toNanos(20) - sinceJoin));
            double[] base = new double[1];
            await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                base[0] = stats(a.page, "pub").path("outgoingBitrate").asDouble();
                assertThat(base[0]).as("a's availableOutgoingBitrate 20 s after joining").isGreaterThan(150_000);
            });
            // and it is our feedback that holds it up: when the SFU stops sending it, Chromium backs off
            call("POST", "/internal/v1/test/loss", json.createObjectNode().put("transport_feedback", false), 200);
            try {
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                        assertThat(stats(a.page, "pub").path("outgoingBitrate").asDouble())
                                .isLessThan(Math.max(base[0] * 0.5, 100_000)));   // it bottoms out near 84 kbit/s
            } finally {
                call("POST", "/internal/v1/test/loss", json.createObjectNode().put("transport_feedback", true), 200);
            }

            // ICE restart of b's subscribe connection: new credentials on both sides, same participant and transport
            String oldUfrag = stats(b.page, "sub").path("ufrag").asText();
            String offer = (String) b.page.evaluate("([n]) => restartIce(n)", List.of("sub"));
            JsonNode r = createTransport(meeting, "b", "subscribe", offer);
            assertThat(r.path("transport_id").asText()).isEqualTo(b.subscribeTransportId);
            String answer = r.get("sdp_answer").asText();
            b.page.evaluate("([sdp, tcp]) => answer('sub', sdp, tcp)", List.of(answer, false));
            String newUfrag = stats(b.page, "sub").path("ufrag").asText();
            assertThat(newUfrag).isNotEqualTo(oldUfrag);
            assertThat(answer).doesNotContain("a=ice-ufrag:" + b.subscribeLocalUfrag);
            // the browser's transport now runs on the new credentials (its checks were answered by the SFU), and
            // media keeps flowing on the same participant
            long staleBefore = sfu.metrics().drops("stun_stale_ufrag") + sfu.metrics().drops("stun_auth");
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                JsonNode s = stats(b.page, "sub");
                assertThat(s.path("iceUfrag").asText()).as(s.toString()).isEqualTo(newUfrag);
                assertThat(s.path("state").asText()).isEqualTo("connected");
            });
            assertThat(sfu.metrics().drops("stun_stale_ufrag") + sfu.metrics().drops("stun_auth")).isEqualTo(staleBefore);
            long f0 = frames(b);
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() -> frames(b) > f0 + 30);
            assertGrowing(b, 1);
            assertThat(eventCount(meeting, "transport_connected")).isEqualTo(4);   // no new transport, no reconnect
        } finally {
            a.close();
            b.close();
        }
    }

    @Test
    void iceTcpWhenUdpIsUnusable() {
        String meeting = "m-" + UUID.randomUUID();
        Peer a = join(meeting, "a", false, true, 1);
        Peer b = join(meeting, "b", false, true, 1);
        try {
            awaitMediaFromAll(a, 1);
            awaitMediaFromAll(b, 1);
            assertThat(stats(a.page, "sub").path("protocol").asText()).isEqualTo("tcp");
            assertThat(stats(b.page, "pub").path("protocol").asText()).isEqualTo("tcp");
        } finally {
            a.close();
            b.close();
        }
    }

    @Test
    void simulcastLayerFollowsTheRequestedTileSize() throws Exception {
        String meeting = "m-" + UUID.randomUUID();
        Peer pub = join(meeting, "pub", true, false, 1);
        Peer small = join(meeting, "small", false, false, 1);
        Peer large = join(meeting, "large", false, false, 1);
        try {
            String track = "pub:1";
            internal.subscribe(meeting, "small", track, 320, 180, 30);
            internal.subscribe(meeting, "large", track, 1280, 720, 30);
            await().atMost(Duration.ofSeconds(25)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                assertThat(maxWidth(small)).isBetween(1, 320);
                assertThat(maxWidth(large)).isGreaterThan(320);
            });
            long before = frames(small);
            await().atMost(Duration.ofSeconds(5)).until(() -> frames(small) > before + 10);
        } finally {
            pub.close();
            small.close();
            large.close();
        }
    }

    /**
     * VP8 temporal scalability: Chromium sends each simulcast encoding with three temporal layers; a subscriber
     * asking for at most 8 fps gets only TL0 (a quarter of the pictures) while another keeps all of them, and the
     * dropped packets leave no gaps in what it receives (no loss counted, no NACKs); asking for 30 fps again
     * restores the full rate.
     */
    @Test
    void temporalLayersFollowTheRequestedFrameRate() throws Exception {
        String meeting = "m-" + UUID.randomUUID();
        Peer pub = join(meeting, "pub", true, false, 1);
        Peer full = join(meeting, "full", false, false, 1);
        Peer low = join(meeting, "low", false, false, 1);
        try {
            String track = "pub:1";
            internal.subscribe(meeting, "full", track, 320, 180, 30);
            internal.subscribe(meeting, "low", track, 320, 180, 8);
            await("low on TL0, full on every temporal layer").atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> {
                        JsonNode l = videoSlot(meeting, "low"), f = videoSlot(meeting, "full");
                        assertThat(l.path("temporal_layers").asInt()).as("temporal layers the SFU sees; publisher: %s",
                                stats(pub.page, "pub").path("outbound")).isEqualTo(3);
                        assertThat(l.path("target_temporal").asInt()).as("low: %s", l).isZero();
                        assertThat(l.path("temporal").asInt()).as("low: %s", l).isZero();
                        assertThat(f.path("temporal").asInt()).as("full: %s", f).isEqualTo(3);
                        assertThat(frames(low)).isGreaterThan(5);
                    });
            Thread.sleep(2000);                               // the decoder settles on the new rate
            long fullBefore = frames(full), lowBefore = frames(low), lostBefore = videoLost(low), nacksBefore = nacks(low);
            long t0 = System.nanoTime();
            Thread.sleep(6000);
            double secs = (System.nanoTime() - t0) / 1e9;
            double fullFps = (frames(full) - fullBefore) / secs, lowFps = (frames(low) - lowBefore) / secs;
            long lost = videoLost(low) - lostBefore, nacks = nacks(low) - nacksBefore;
            System.out.printf("temporal: full %.1f fps, TL0-only %.1f fps (browser framesPerSecond %s / %s), low lost %d, nacks %d, "
                            + "SFU dropped %d packets for it; publisher %s%n", fullFps, lowFps,
                    stats(full.page, "sub").path("video"), stats(low.page, "sub").path("video"), lost, nacks,
                    videoSlot(meeting, "low").path("temporal_dropped_packets").asLong(), stats(pub.page, "pub").path("outbound"));
            assertThat(videoSlot(meeting, "low").path("temporal_dropped_packets").asLong()).isGreaterThan(50);
            assertThat(lowFps).as("TL0 keeps decoding").isGreaterThan(0.5);
            assertThat(lowFps).as("TL0 only: a quarter of the pictures (full: %.1f fps)", fullFps).isLessThan(fullFps * 0.45);
            assertThat(lost).as("dropped layers must not look like loss").isLessThanOrEqualTo(2);
            assertThat(nacks).as("nor be NACKed").isLessThanOrEqualTo(2);

            internal.subscribe(meeting, "low", track, 320, 180, 30);
            // back on every layer: the top TID the stream has (2 of 0..2) after stepping up at sync pictures, or 3
            // ("all") after a keyframe — both forward every picture, which the frame-rate check below confirms
            await("low back on every temporal layer").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> {
                        JsonNode l = videoSlot(meeting, "low");
                        assertThat(l.path("temporal").asInt()).as("low: %s", l)
                                .isGreaterThanOrEqualTo(l.path("temporal_layers").asInt() - 1);
                    });
            Thread.sleep(2000);
            long fullAgain = frames(full), lowAgain = frames(low);
            Thread.sleep(4000);
            assertThat(frames(low) - lowAgain).as("low's frame rate restored (full: %d frames)", frames(full) - fullAgain)
                    .isGreaterThan((long) ((frames(full) - fullAgain) * 0.7));
        } finally {
            pub.close();
            full.close();
            low.close();
        }
    }

    @Test
    void fivePercentLossIsRecoveredByNackAndRtx() throws Exception {
        String meeting = "m-" + UUID.randomUUID();
        Peer a = join(meeting, "a", false, false, 1);
        Peer b = join(meeting, "b", false, false, 1);
        try {
            awaitMediaFromAll(b, 1);
            long retransmittedBefore = sfu.metrics().sum(m -> m.retransmissions);
            long rtxSentBefore = sfu.metrics().sum(m -> m.rtxSent), repairsBefore = sfu.metrics().sum(m -> m.rtxRepairs);
            // 5 % lost toward the subscriber (answered from the SFU's cache as RTX) and 5 % of a's video lost on
            // the way in (the SFU NACKs a, which repairs with RTX)
            loss(5, 5);
            long framesBefore = frames(b), lostBefore = videoLost(b), dropsBefore = testDrops();
            Thread.sleep(6000);
            long framesAfter = frames(b), dropsAfter = testDrops();
            loss(0, 0);
            Thread.sleep(3000);                 // repairs still in flight when the loss stopped land (or are given up)
            long lostAfter = videoLost(b);
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                JsonNode s = stats(b.page, "sub");
                assertThat(s.path("nacks").asLong()).isGreaterThan(0);
                assertThat(sfu.metrics().sum(m -> m.retransmissions)).isGreaterThan(retransmittedBefore);
                // downstream RTX: the SFU sent retransmissions on the slot's RTX SSRC and Chromium counted them as such
                assertThat(sfu.metrics().sum(m -> m.rtxSent)).isGreaterThan(rtxSentBefore);
                assertThat(s.path("rtxReceived").asLong()).as("subscriber retransmittedPacketsReceived").isGreaterThan(0);
                // upstream RTX: a retransmitted, the SFU restored the original packets from it
                assertThat(stats(a.page, "pub").path("rtxSent").asLong()).as("publisher retransmittedPacketsSent").isGreaterThan(0);
                assertThat(sfu.metrics().sum(m -> m.rtxRepairs)).isGreaterThan(repairsBefore);
            });
            // the losses were repaired: Chromium's video packetsLost (never received, RTX counts as received) grew by
            // far less than what the SFU threw away both ways (unrepaired, most of those would be lost video)
            assertThat(dropsAfter - dropsBefore).isGreaterThan(10);
            assertThat(lostAfter - lostBefore).as("video packets lost for good (SFU dropped %d)", dropsAfter - dropsBefore)
                    .isLessThan((dropsAfter - dropsBefore) / 3);
            System.out.printf("loss test: SFU dropped %d, Chromium lost %d for good%n", dropsAfter - dropsBefore, lostAfter - lostBefore);
            // and frames kept decoding (a liveness floor that holds on a starved machine: ≥ 4 fps)
            assertThat(framesAfter - framesBefore).isGreaterThan(24);
        } finally {
            loss(0, 0);
            a.close();
            b.close();
        }
    }

    @Test
    void revokedGrantStopsReceiversWithinThreeSeconds() throws Exception {
        String meeting = "m-" + UUID.randomUUID();
        Peer a = join(meeting, "a", false, false, 1);
        Peer b = join(meeting, "b", false, false, 1);
        try {
            awaitMediaFromAll(b, 1);
            internal.setMayPublish(meeting, "a", false);   // controller revokes a's media
            long revokedAt = System.nanoTime();
            Thread.sleep(3000);
            long f1 = frames(b);
            Thread.sleep(1500);
            assertThat(frames(b)).as("frames after revocation").isEqualTo(f1);
            assertThat(System.nanoTime() - revokedAt).isLessThan(TimeUnit.SECONDS.toNanos(6));
            assertThat(sfu.metrics().drops("grant_publish")).isGreaterThan(0);
        } finally {
            a.close();
            b.close();
        }
    }

    @Test
    void expiredGrantStopsReceiversWithinThreeSeconds() throws Exception {
        String meeting = "m-" + UUID.randomUUID();
        Peer a = join(meeting, "a", false, false, 1);
        Peer b = join(meeting, "b", false, false, 1);
        try {
            awaitMediaFromAll(b, 1);
            internal.stopRenewing(meeting);                 // renewals stop: grants run out after ttl 3 s
            Thread.sleep(3500);
            long f1 = frames(b), a1 = audioPackets(b);
            Thread.sleep(1500);
            assertThat(frames(b)).as("video frames after expiry").isEqualTo(f1);
            // totalSamplesReceived keeps counting concealment, so audio is judged by packets received
            assertThat(audioPackets(b)).as("audio packets after expiry").isEqualTo(a1);
            assertThat(sfu.metrics().drops("grant_publish") + sfu.metrics().drops("grant_subscribe")).isGreaterThan(0);
        } finally {
            a.close();
            b.close();
        }
    }

    /**
     * A publisher declares its video a screen share: subscribers get it forwarded and are told its source (slot
     * assignments, track_published), the SFU measures the round trip toward the subscriber from its receiver
     * reports, and taking the screen permission away stops the screen while audio goes on.
     */
    @Test
    void aScreenShareIsForwardedAsAScreenOnlyUnderTheScreenPermission() throws Exception {
        String meeting = "m-" + UUID.randomUUID();
        internal.setMayShareScreen(meeting, "a", true);
        Peer a = join(meeting, "a", false, false, 1, "screen");
        Peer b = join(meeting, "b", false, false, 1);
        try {
            awaitMediaFromAll(b, 1);
            String screenTrack = null;
            for (JsonNode s : internal.participant(meeting, "b").path("slots")) {
                if (s.path("kind").asText().equals("video")) {
                    assertThat(s.path("source").asText()).as(s.toString()).isEqualTo("screen");
                    screenTrack = s.path("track_id").asText();
                } else {
                    assertThat(s.path("source").asText()).isEqualTo("microphone");
                }
            }
            assertThat(screenTrack).isNotNull();
            String st = screenTrack;
            assertThat(events).anySatisfy(e -> {
                assertThat(e.path("meeting_id").asText()).isEqualTo(meeting);
                assertThat(e.path("type").asText()).isEqualTo("track_published");
                assertThat(e.path("data").path("track_id").asText()).isEqualTo(st);
                assertThat(e.path("data").path("source").asText()).isEqualTo("screen");
            });
            // b's own camera is a camera (nothing declared)
            assertThat(internal.participant(meeting, "b").path("track_sources").toString()).contains("\"camera\"").doesNotContain("screen");
            // Chromium's receiver reports echo our sender reports: a loopback round trip is measured (tens of ms on
            // a loaded test machine: both event loops' delays count; the arithmetic is RoundTripTimeTest's)
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                JsonNode p = internal.participant(meeting, "b");
                assertThat(p.path("rtt_samples").asInt()).as(p.toString()).isGreaterThanOrEqualTo(3);
                assertThat(p.path("rtt_ms").asInt()).as(p.toString()).isBetween(0, 1000);
            });

            internal.setMayShareScreen(meeting, "a", false);
            long dropsBefore = sfu.metrics().drops("grant_publish");
            Thread.sleep(1500);
            long f1 = frames(b), a1 = audioPackets(b);
            Thread.sleep(1500);
            assertThat(frames(b)).as("screen frames without the screen permission").isEqualTo(f1);
            assertThat(audioPackets(b)).as("audio goes on").isGreaterThan(a1);
            assertThat(sfu.metrics().drops("grant_publish")).isGreaterThan(dropsBefore);
        } finally {
            a.close();
            b.close();
        }
    }

    // ------------------------------------------------------------------ helpers

    private record Peer(BrowserContext ctx, Page page, String pid, String subscribeTransportId, String subscribeLocalUfrag) {
        void close() { ctx.close(); }
    }

    private Peer join(String meeting, String pid, boolean simulcast, boolean tcpOnly, int slots) {
        return join(meeting, pid, simulcast, tcpOnly, slots, null);
    }

    /** {@code videoSource}: what the publish offer declares its video to be (null = nothing declared). */
    private Peer join(String meeting, String pid, boolean simulcast, boolean tcpOnly, int slots, String videoSource) {
        BrowserContext ctx = chromium.newContext();
        Page page = ctx.newPage();
        page.navigate(web.url("/sfu.html"));
        String pubOffer = (String) page.evaluate("([s]) => publish('pub', s)", List.of(simulcast));
        java.util.regex.Matcher vm = java.util.regex.Pattern.compile("m=video[\\s\\S]*?a=mid:(\\S+)").matcher(pubOffer);
        java.util.Map<String, String> sources = videoSource != null && vm.find() ? java.util.Map.of(vm.group(1), videoSource) : null;
        JsonNode pub = internal.createTransport(meeting, pid, "publish", pubOffer,
                "http://127.0.0.1:" + eventSink.getAddress().getPort() + "/events", sources);
        page.evaluate("([sdp, tcp]) => answer('pub', sdp, tcp)", List.of(pub.get("sdp_answer").asText(), tcpOnly));
        String subOffer = (String) page.evaluate("([n]) => subscribe('sub', n)", List.of(slots));
        JsonNode sub = createTransport(meeting, pid, "subscribe", subOffer);
        String subAnswer = sub.get("sdp_answer").asText();
        page.evaluate("([sdp, tcp]) => answer('sub', sdp, tcp)", List.of(subAnswer, tcpOnly));
        java.util.regex.Matcher u = java.util.regex.Pattern.compile("a=ice-ufrag:(\\S+)").matcher(subAnswer);
        return new Peer(ctx, page, pid, sub.path("transport_id").asText(), u.find() ? u.group(1) : null);
    }

    private long eventCount(String meeting, String type) {
        return events.stream().filter(e -> meeting.equals(e.path("meeting_id").asText()) && type.equals(e.path("type").asText())).count();
    }

    private JsonNode createTransport(String meeting, String pid, String kind, String offer) {
        return internal.createTransport(meeting, pid, kind, offer, "http://127.0.0.1:" + eventSink.getAddress().getPort() + "/events");
    }

    private void loss(int egressPercent, int ingressPercent) {
        call("POST", "/internal/v1/test/loss", json.createObjectNode().put("egress_loss_percent", egressPercent)
                .put("ingress_loss_percent", ingressPercent), 200);
    }

    private String metricsText() throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sfu.internalPort() + "/metrics")).GET().build();
        return http.send(req, HttpResponse.BodyHandlers.ofString()).body();
    }

    private JsonNode call(String method, String path, JsonNode body, int expect) {
        return internal.call(method, path, body, expect);
    }

    private JsonNode stats(Page page, String pc) {
        return json.valueToTree(page.evaluate("([n]) => stats(n)", List.of(pc)));
    }

    private long frames(Peer p) {
        long n = 0;
        for (JsonNode v : stats(p.page, "sub").path("video")) n += v.path("frames").asLong();
        return n;
    }

    /** Packets the SFU's test switch dropped, toward subscribers and from publishers. */
    private long testDrops() {
        return sfu.metrics().drops("test_loss") + sfu.metrics().drops("test_loss_ingress");
    }

    private long videoLost(Peer p) {
        long n = 0;
        for (JsonNode v : stats(p.page, "sub").path("video")) n += v.path("lost").asLong();
        return n;
    }

    private long nacks(Peer p) {
        long n = 0;
        for (JsonNode v : stats(p.page, "sub").path("video")) n += v.path("nacks").asLong();
        return n;
    }

    /** The participant's (first) video slot in the SFU's /state: layers, temporal layer, drops. */
    private JsonNode videoSlot(String meeting, String pid) {
        return internal.participant(meeting, pid).path("video_layers").path(0);
    }

    private long audioPackets(Peer p) {
        long n = 0;
        for (JsonNode v : stats(p.page, "sub").path("audio")) n += v.path("packets").asLong();
        return n;
    }

    private int maxWidth(Peer p) {
        int w = 0;
        for (JsonNode v : stats(p.page, "sub").path("video")) w = Math.max(w, v.path("width").asInt());
        return w;
    }

    /** Every one of {@code others} video and audio streams on the peer's subscribe connection is decoding. */
    private void awaitMediaFromAll(Peer p, int others) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            JsonNode s = stats(p.page, "sub");
            int videos = 0, audios = 0;
            for (JsonNode v : s.path("video")) if (v.path("frames").asLong() > 5) videos++;
            for (JsonNode a : s.path("audio")) if (a.path("samples").asLong() > 4800) audios++;
            assertThat(videos).as(p.pid + " decoding videos: " + s).isEqualTo(others);
            assertThat(audios).as(p.pid + " audio streams: " + s).isEqualTo(others);
        });
    }

    /** Each inbound stream's framesDecoded / totalSamplesReceived grows over a short window. */
    private void assertGrowing(Peer p, int others) {
        JsonNode s1 = stats(p.page, "sub");
        try { Thread.sleep(1500); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
        JsonNode s2 = stats(p.page, "sub");
        int grewV = 0, grewA = 0;
        for (var e : s2.path("video").properties()) {
            if (e.getValue().path("frames").asLong() > s1.path("video").path(e.getKey()).path("frames").asLong()) grewV++;
        }
        for (var e : s2.path("audio").properties()) {
            if (e.getValue().path("samples").asLong() > s1.path("audio").path(e.getKey()).path("samples").asLong()) grewA++;
        }
        assertThat(grewV).as(p.pid + " growing video").isEqualTo(others);
        assertThat(grewA).as(p.pid + " growing audio").isEqualTo(others);
    }
}
