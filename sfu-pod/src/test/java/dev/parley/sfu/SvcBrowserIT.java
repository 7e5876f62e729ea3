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

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * VP9 SVC through the SFU with real headless Chromium: the publisher sends one VP9 stream in L3T3_KEY (three
 * spatial, three temporal layers, as {@code parley-client.js}'s {@code svc} option does); each subscriber's
 * tile size picks the spatial layer its browser decodes, with congestion control on. The test plays the
 * controller like {@link SfuBrowserIT} (tickets, grants renewed every second, subscriptions).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SvcBrowserIT {
    private static final String SECRET = "test-internal-secret-0123456789";
    private static final String POD = "sfu-svc-it";
    /** Publishes the fake camera (1280×720) as VP9 L3T3_KEY, VP9 profile 0 first in the codec preferences. */
    private static final String PUBLISH_SVC = """
            async (name) => {
              const stream = await navigator.mediaDevices.getUserMedia({audio: true, video: {width: 1280, height: 720}});
              const pc = new RTCPeerConnection({bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require'});
              pc.addTransceiver(stream.getAudioTracks()[0], {direction: 'sendonly'});
              const t = pc.addTransceiver(stream.getVideoTracks()[0],
                  {direction: 'sendonly', sendEncodings: [{scalabilityMode: 'L3T3_KEY'}]});
              const codecs = RTCRtpReceiver.getCapabilities('video').codecs;
              const vp9 = codecs.filter(c => c.mimeType === 'video/VP9' && /profile-id=0/.test(c.sdpFmtpLine || ''));
              t.setCodecPreferences([...vp9, ...codecs.filter(c => !vp9.includes(c))]);
              await pc.setLocalDescription(await pc.createOffer());
              window.pcs[name] = pc;
              return pc.localDescription.sdp;
            }""";
    /** The subscribe connection's inbound video: decoded frames, size, freezes, codec. */
    private static final String INBOUND = """
            async (name) => {
              const r = await window.pcs[name].getStats();
              const out = [];
              r.forEach(s => {
                if (s.type !== 'inbound-rtp' || s.kind !== 'video' || !s.packetsReceived) return;
                const c = r.get(s.codecId);
                out.push({frames: s.framesDecoded || 0, width: s.frameWidth || 0, freezes: s.freezeCount || 0,
                          lost: s.packetsLost || 0, codec: c ? c.mimeType : null});
              });
              return out;
            }""";
    /** The publisher's outbound video: scalability mode, top width sent, what limits it. */
    private static final String OUTBOUND = """
            async (name) => {
              const r = await window.pcs[name].getStats();
              let out = {};
              r.forEach(s => {
                if (s.type === 'outbound-rtp' && s.kind === 'video') out = {mode: s.scalabilityMode || null,
                    width: s.frameWidth || 0, limit: s.qualityLimitationReason || null, target: s.targetBitrate || 0};
              });
              return out;
            }""";
    /** On a loaded machine the encoder would shed spatial layers for CPU: keep the resolution, lose frame rate. */
    private static final String KEEP_RESOLUTION = """
            async (name) => {
              const sender = window.pcs[name].getSenders().find(s => s.track && s.track.kind === 'video');
              const p = sender.getParameters();
              p.degradationPreference = 'maintain-resolution';
              await sender.setParameters(p);
            }""";

    private final ObjectMapper json = new ObjectMapper();
    private final ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor();
    private SfuServer sfu;
    private SfuInternalCalls internal;
    private StaticServer web;
    private Chromium chromium;

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
        chromium = Chromium.launch(Chromium.options());
        renewer.scheduleAtFixedRate(internal::renewGrants, 0, 1000, TimeUnit.MILLISECONDS);
    }

    @AfterAll
    void stop() {
        renewer.shutdownNow();
        if (chromium != null) chromium.close();
        if (web != null) web.close();
        if (sfu != null) sfu.close();
    }

    /**
     * A large tile decodes the top spatial layer, a small one the lowest (the SFU drops the others and ends each
     * picture with the marker bit), both without freezing; the small tile then grows and its subscriber climbs to
     * the top layer at the keyframe the SFU asks for.
     */
    @Test
    void tileSizePicksTheSpatialLayerOfOneVp9Stream() {
        String meeting = "m-" + UUID.randomUUID();
        Browser pub = publisher(meeting, "pub");
        Browser large = subscriber(meeting, "large");
        Browser small = subscriber(meeting, "small");
        try {
            String track = "pub:1";
            internal.subscribe(meeting, "large", track, 1280, 720, 30);
            internal.subscribe(meeting, "small", track, 320, 180, 30);
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> assertThat(outbound(pub).path("mode").asText()).isEqualTo("L3T3_KEY"));

            // the SFU learned three spatial layers (sizes from the scalability structure) ...
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(svc(meeting, "large").path("sizes")).as("SFU %s, publisher %s", svc(meeting, "large"), outbound(pub)).hasSize(3));
            int[] widths = new int[3];
            for (int i = 0; i < 3; i++) widths[i] = Integer.parseInt(svc(meeting, "large").path("sizes").path(i).asText().split("x")[0]);
            assertThat(widths[0]).isLessThan(widths[1]);
            assertThat(widths[1]).isLessThan(widths[2]);
            // ... and each subscriber decodes the layer its tile asks for: the top one, the lowest one
            await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                JsonNode l = inbound(large), s = inbound(small);
                assertThat(l.path("codec").asText()).isEqualTo("video/VP9");
                assertThat(s.path("codec").asText()).isEqualTo("video/VP9");
                assertThat(l.path("width").asInt()).as("large %s, SFU %s", l, diagnosis(meeting, "large")).isEqualTo(widths[2]);
                assertThat(s.path("width").asInt()).as("small %s, SFU %s", s, diagnosis(meeting, "small")).isEqualTo(widths[0]);
            });
            JsonNode smallSlot = svc(meeting, "small");
            assertThat(smallSlot.path("spatial").asInt()).isZero();
            assertThat(smallSlot.path("dropped_packets").asLong()).isPositive();     // the upper layers were filtered out
            assertDecodingWithoutFreeze(large);
            assertDecodingWithoutFreeze(small);

            // the small tile grows: the SFU asks for a keyframe and the subscriber climbs to the top layer
            internal.subscribe(meeting, "small", track, 1280, 720, 30);
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(inbound(small).path("width").asInt()).as("small %s, SFU %s", inbound(small), diagnosis(meeting, "small"))
                            .isEqualTo(widths[2]));
            assertThat(svc(meeting, "small").path("spatial").asInt()).isGreaterThanOrEqualTo(2);
            assertDecodingWithoutFreeze(small);
        } finally {
            pub.close();
            large.close();
            small.close();
        }
    }

    // ------------------------------------------------------------------ helpers

    private record Browser(BrowserContext ctx, Page page) {
        void close() { ctx.close(); }
    }

    private Browser publisher(String meeting, String pid) {
        BrowserContext ctx = chromium.newContext();
        Page page = ctx.newPage();
        page.navigate(web.url("/sfu.html"));
        // what parley-client.js's svc option checks before it asks for L3T3_KEY (media.js vp9SvcCodecs)
        assertThat(page.evaluate("() => JSON.stringify(RTCRtpSender.getCapabilities('video').codecs.filter(c => c.mimeType === 'video/VP9'))"))
                .asString().contains("profile-id=0");
        String offer = (String) page.evaluate(PUBLISH_SVC, "pub");
        JsonNode r = internal.createTransport(meeting, pid, "publish", offer, null);
        String answer = r.get("sdp_answer").asText();
        assertThat(answer).contains("VP9/90000").doesNotContain("VP8/90000");
        // Test input, not the SFU's answer: on this shared 2-core machine the publisher's own uplink estimate sinks
        // to ~150 kbps, where libvpx stops sending the upper spatial layers this test is about; Chromium's
        // x-google-min/start-bitrate keep it sending all three.
        String vp9Pt = answer.replaceAll("(?s).*a=rtpmap:(\\d+) VP9/90000.*", "$1");
        String munged = answer.replace("a=fmtp:" + vp9Pt + " profile-id=0",
                "a=fmtp:" + vp9Pt + " profile-id=0;x-google-min-bitrate=1200;x-google-start-bitrate=1800");
        assertThat(munged).isNotEqualTo(answer);
        page.evaluate("([sdp]) => answer('pub', sdp, false)", List.of(munged));
        page.evaluate(KEEP_RESOLUTION, "pub");
        return new Browser(ctx, page);
    }

    private Browser subscriber(String meeting, String pid) {
        BrowserContext ctx = chromium.newContext();
        Page page = ctx.newPage();
        page.navigate(web.url("/sfu.html"));
        String offer = (String) page.evaluate("([n]) => subscribe('sub', n)", List.of(1));
        JsonNode r = internal.createTransport(meeting, pid, "subscribe", offer, null);
        page.evaluate("([sdp]) => answer('sub', sdp, false)", List.of(r.get("sdp_answer").asText()));
        return new Browser(ctx, page);
    }

    private JsonNode outbound(Browser b) {
        return json.valueToTree(b.page.evaluate(OUTBOUND, "pub"));
    }

    /** The subscriber's one inbound video stream (missing node before it has one). */
    private JsonNode inbound(Browser b) {
        return json.valueToTree(b.page.evaluate(INBOUND, "sub")).path(0);
    }

    /** The SFU's SVC state of the participant's video slot ({@code /state} video_layers[0].svc). */
    private JsonNode svc(String meeting, String pid) {
        return internal.participant(meeting, pid).path("video_layers").path(0).path("svc");
    }

    /** The slot's layers and the subscriber's congestion-control state, for failure messages. */
    private String diagnosis(String meeting, String pid) {
        JsonNode p = internal.participant(meeting, pid);
        return p.path("video_layers").path(0) + " cc " + p.path("congestion_control") + " drops: vp9_malformed "
                + sfu.metrics().drops("vp9_malformed") + " send_queue_full " + sfu.metrics().drops("send_queue_full");
    }

    /** Over 3 s the stream decodes at least 10 fps worth of frames and the browser counts no new freeze. */
    private void assertDecodingWithoutFreeze(Browser b) {
        JsonNode before = inbound(b);
        try { Thread.sleep(3000); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
        JsonNode after = inbound(b);
        assertThat(after.path("frames").asLong() - before.path("frames").asLong()).as("frames decoded in 3 s: %s → %s", before, after)
                .isGreaterThan(30);
        assertThat(after.path("freezes").asLong()).as("freezes: %s → %s", before, after).isEqualTo(before.path("freezes").asLong());
    }
}
