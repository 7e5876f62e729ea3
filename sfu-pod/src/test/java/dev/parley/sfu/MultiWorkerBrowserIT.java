package dev.parley.sfu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import com.nimbusds.jose.jwk.ECKey;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.platform.ticket.TicketSigner;
import dev.parley.sfu.config.SfuConfig;
import dev.parley.sfu.metrics.SfuMetrics;
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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two meetings on one SFU with two media workers, in headless Chromium: each meeting lands on its own worker, a
 * UDP peer and an ICE-TCP-only peer in each reach that worker's ports (the answer names them) and receive each
 * other; a grant revoked in one meeting stops media on that worker only.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MultiWorkerBrowserIT {
    private static final String SECRET = "multi-worker-it-secret-0123456789";
    private static final String POD = "sfu-workers-it";
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
                key.toPublicJWK().toJSONString(), "", 5, true, 4_000_000, true, SfuConfig.DEFAULT_CONSENT_TIMEOUT_MS, 2));
        String page;
        try (InputStream in = getClass().getResourceAsStream("/web/sfu.html")) {
            page = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        web = StaticServer.start().page("/sfu.html", page);
        chromium = Chromium.launch();
        renewer.scheduleAtFixedRate(internal::renewGrants, 0, 1000, TimeUnit.MILLISECONDS);
    }

    @AfterAll
    void stop() {
        renewer.shutdownNow();
        if (chromium != null) chromium.close();
        if (web != null) web.close();
        if (sfu != null) sfu.close();
    }

    @Test
    void eachMeetingOnItsOwnWorkerOverUdpAndIceTcpAndGrantsPerWorker() {
        Peer a1 = join("meeting-a", "a1", false), a2 = join("meeting-a", "a2", true);
        Peer b1 = join("meeting-b", "b1", false), b2 = join("meeting-b", "b2", true);
        try {
            JsonNode state = internal.call("GET", "/internal/v1/state", null, 200);
            int wa = workerOf(state, "meeting-a"), wb = workerOf(state, "meeting-b");
            assertThat(wa).as("two meetings on two idle workers").isNotEqualTo(wb);
            for (Peer p : List.of(a1, a2, b1, b2)) {
                JsonNode w = state.path("workers").path(p.pid.startsWith("a") ? wa : wb);
                assertThat(p.udpPort).as(p.pid + " answer's UDP candidate").isEqualTo(w.path("udp_port").asInt());
                assertThat(p.tcpPort).as(p.pid + " answer's ICE-TCP candidate").isEqualTo(w.path("tcp_port").asInt());
            }
            for (Peer p : List.of(a1, a2, b1, b2)) awaitMediaFrom(p);
            assertThat(stats(a1.page, "sub").path("protocol").asText()).isEqualTo("udp");
            assertThat(stats(a2.page, "sub").path("protocol").asText()).isEqualTo("tcp");
            assertThat(stats(b1.page, "pub").path("protocol").asText()).isEqualTo("udp");
            assertThat(stats(b2.page, "pub").path("protocol").asText()).isEqualTo("tcp");
            SfuMetrics ma = sfu.workers().worker(wa).metrics(), mb = sfu.workers().worker(wb).metrics();
            assertThat(ma.forwardedPackets.sum()).as("worker %d forwards meeting-a", wa).isPositive();
            assertThat(mb.forwardedPackets.sum()).as("worker %d forwards meeting-b", wb).isPositive();

            // revoke b1's media: b2 stops getting b1's frames, meeting-a on the other worker goes on
            internal.setMayPublish("meeting-b", "b1", false);
            await().atMost(Duration.ofSeconds(10)).until(() -> mb.drops("grant_publish") > 0);
            long fb = frames(b2);
            sleep(1500);
            long fb1 = frames(b2);
            sleep(1500);
            assertThat(frames(b2)).as("b2 gets no frames from the revoked b1").isLessThanOrEqualTo(fb1 + 2);
            assertThat(fb1).isGreaterThanOrEqualTo(fb);
            long fa = frames(a2);
            sleep(1500);
            assertThat(frames(a2)).as("a2 still gets a1's frames").isGreaterThan(fa);
            assertThat(ma.drops("grant_publish")).as("nothing revoked on worker %d", wa).isZero();
        } finally {
            for (Peer p : List.of(a1, a2, b1, b2)) p.ctx.close();
        }
    }

    private record Peer(BrowserContext ctx, Page page, String pid, int udpPort, int tcpPort) {}

    private static final Pattern UDP = Pattern.compile("a=candidate:\\S+ 1 udp \\d+ \\S+ (\\d+) typ host");
    private static final Pattern TCP = Pattern.compile("a=candidate:\\S+ 1 tcp \\d+ \\S+ (\\d+) typ host tcptype passive");

    /** Publishes camera + microphone and subscribes one slot; {@code tcpOnly}: the page only learns the ICE-TCP candidate. */
    private Peer join(String meeting, String pid, boolean tcpOnly) {
        BrowserContext ctx = chromium.newContext();
        Page page = ctx.newPage();
        page.navigate(web.url("/sfu.html"));
        String pubOffer = (String) page.evaluate("([s]) => publish('pub', s)", List.of(false));
        JsonNode pub = internal.createTransport(meeting, pid, "publish", pubOffer, null);
        page.evaluate("([sdp, tcp]) => answer('pub', sdp, tcp)", List.of(pub.get("sdp_answer").asText(), tcpOnly));
        String subOffer = (String) page.evaluate("([n]) => subscribe('sub', n)", List.of(1));
        String subAnswer = internal.createTransport(meeting, pid, "subscribe", subOffer, null).get("sdp_answer").asText();
        page.evaluate("([sdp, tcp]) => answer('sub', sdp, tcp)", List.of(subAnswer, tcpOnly));
        return new Peer(ctx, page, pid, port(UDP, subAnswer), port(TCP, subAnswer));
    }

    private static int port(Pattern p, String sdp) {
        Matcher m = p.matcher(sdp);
        assertThat(m.find()).as(sdp).isTrue();
        return Integer.parseInt(m.group(1));
    }

    private static int workerOf(JsonNode state, String meeting) {
        for (JsonNode m : state.path("meetings")) if (m.path("meeting_id").asText().equals(meeting)) return m.path("worker").asInt();
        throw new AssertionError(meeting + " not in " + state);
    }

    private JsonNode stats(Page page, String pc) {
        return json.valueToTree(page.evaluate("([n]) => stats(n)", List.of(pc)));
    }

    private long frames(Peer p) {
        long n = 0;
        for (JsonNode v : stats(p.page, "sub").path("video")) n += v.path("frames").asLong();
        return n;
    }

    /** The other participant's video and audio are decoding on the peer's subscribe connection. */
    private void awaitMediaFrom(Peer p) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            JsonNode s = stats(p.page, "sub");
            int videos = 0, audios = 0;
            for (JsonNode v : s.path("video")) if (v.path("frames").asLong() > 5) videos++;
            for (JsonNode a : s.path("audio")) if (a.path("samples").asLong() > 4800) audios++;
            assertThat(videos).as(p.pid + " decoding video: " + s).isEqualTo(1);
            assertThat(audios).as(p.pid + " audio: " + s).isEqualTo(1);
        });
    }

    private static void sleep(long ms) {
        try { Thread.sleep(ms); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
    }
}
