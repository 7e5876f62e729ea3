package dev.parley.e2e.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.microsoft.playwright.Page;
import dev.parley.testsupport.browser.WebRtcStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SFU's routing features on encrypted media (docs/e2ee.md "Clear bytes"): the real controller and SFU jars,
 * two people in headless Chromium in an e2ee meeting. The host's camera is 1280×720, sent as three simulcast
 * encodings (q/h/f), every frame encrypted in the host's browser; the SFU still finds key frames (the VP8 payload
 * header stays clear) and picks layers from the RTP payload descriptor.
 * <ol>
 *   <li>Dynacast: in the grid nobody needs the top layer and the host stops encoding it.</li>
 *   <li>The viewer pins the host: the SFU moves it to the top layer (a key-frame switch) and it decodes the top layer's frames (720p unless the host's CPU adapts).</li>
 *   <li>The viewer's downlink is cut to 300 kbit/s (the SFU's test-only link emulator): the SFU switches it down
 *       to a lower layer and its video keeps decoding, no frame failing its tag.</li>
 *   <li>The limit is lifted: it climbs back to the top layer.</li>
 * </ol>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class E2eeSimulcastBrowserIT {
    @RegisterExtension
    static final BrowserPlatform<LocalPlatform> env = BrowserPlatform.of(() -> LocalPlatform.missing(1),
            () -> LocalPlatform.start(1, Map.of("PARLEY_SFU_TEST_HOOKS", "true")));
    private static final String HD_CAMERA = """
        (() => {
          const md = navigator.mediaDevices;
          const original = md.getUserMedia.bind(md);
          md.getUserMedia = (c) => original(c && c.video
            ? { ...c, video: { ...(typeof c.video === 'object' ? c.video : {}), width: { exact: 1280 }, height: { exact: 720 } } }
            : c);
        })();
        """;
    private static final String SUB = "window.parleyApp.client.media.sub";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void simulcastSwitchingAndDynacastWorkOnEncryptedFrames() throws Exception {
        try (BrowserParticipant host = new BrowserParticipant(env.browser(), env.platform().baseUrl(), "Hana Host", HD_CAMERA);
             BrowserParticipant viewer = new BrowserParticipant(env.browser(), env.platform().baseUrl(), "Vik Viewer")) {
            host.signIn();
            host.page.fill("[data-testid=create-title]", "E2EE simulcast");
            host.page.uncheck("[data-testid=create-waiting-room]");
            host.page.selectOption("[data-testid=create-encryption]", "e2ee");
            host.page.click("[data-testid=create-submit]");
            String link = host.page.inputValue("[data-testid=share-link]");
            host.page.click("[data-testid=share-join]");
            host.page.click("[data-testid=prejoin-join]");
            host.page.waitForSelector("[data-testid=meeting]", new Page.WaitForSelectorOptions().setTimeout(20000));
            viewer.join(link);
            host.awaitConnected(Duration.ofSeconds(30));
            viewer.awaitConnected(Duration.ofSeconds(30));
            String hostPid = host.pid(), viewerPid = viewer.pid();
            String meetingId = String.valueOf(viewer.page.evaluate("() => window.parleyApp.client.meetingId"));
            viewer.awaitVideoFrom(hostPid, Duration.ofSeconds(40));
            assertThat(viewer.page.evaluate("() => window.parleyApp.client.state.e2ee?.path")).as("an e2ee meeting").isEqualTo("script-transform");
            assertThat(num(viewer.page.evaluate("(p) => window.parleyApp.client.e2ee.cryptor.latest.decryptedBy[p] ?? 0", hostPid)))
                    .as("the viewer decrypts the host's frames").isPositive();
            List<Object> rids = ((List<?>) host.page.evaluate("async () => (await window.parleyApp.client.media.publishLayerStats()).map((l) => l.rid)"))
                    .stream().map(o -> (Object) o).toList();
            assertThat(rids).as("three simulcast encodings").containsExactlyInAnyOrder("q", "h", "f");

            // 1. dynacast: the grid tile is small, nobody receives f, the host stops encoding it
            BrowserParticipant.awaitTrue(() -> Boolean.FALSE.equals(layerActive(host.page, "f")), Duration.ofSeconds(45),
                    "the host's f encoding inactive (dynacast) " + sfuLine(viewerPid, hostPid));

            // 2. pinned: the SFU forwards the top layer; the viewer decodes 720p frames (decrypted)
            viewer.page.click("[data-testid=tile-" + hostPid + "-camera] button.pin");
            BrowserParticipant.awaitTrue(() -> spatial(viewerPid) == 2 && frameHeight(viewer.page) > 360, Duration.ofSeconds(90),
                    "the viewer on the top layer: " + sfuLine(viewerPid, hostPid));
            System.out.println("e2ee simulcast: pinned → " + sfuLine(viewerPid, hostPid) + ", " + frameHeight(viewer.page) + "p");
            long tagFailures0 = tagFailures(viewer.page);
            long pinnedHeight = frameHeight(viewer.page);

            // 3. constrained: 300 kbit/s → a lower layer, still decoding
            testLink(meetingId, viewerPid, 300);
            BrowserParticipant.awaitTrue(() -> spatial(viewerPid) < 2 && frameHeight(viewer.page) < pinnedHeight, Duration.ofSeconds(60),
                    "the viewer switched down under 300 kbit/s: " + sfuLine(viewerPid, hostPid));
            viewer.awaitVideoFrom(hostPid, Duration.ofSeconds(20));
            System.out.println("e2ee simulcast: 300 kbit/s → " + sfuLine(viewerPid, hostPid) + ", " + frameHeight(viewer.page) + "p");

            // 4. lifted: back to the top layer
            testLink(meetingId, viewerPid, 0);
            BrowserParticipant.awaitTrue(() -> spatial(viewerPid) == 2 && frameHeight(viewer.page) > 360, Duration.ofSeconds(90),
                    "the viewer back on the top layer: " + sfuLine(viewerPid, hostPid));
            viewer.awaitVideoFrom(hostPid, Duration.ofSeconds(20));
            System.out.println("e2ee simulcast: lifted → " + sfuLine(viewerPid, hostPid) + ", " + frameHeight(viewer.page) + "p");
            assertThat(tagFailures(viewer.page)).as("no frame failed its tag across the layer switches").isEqualTo(tagFailures0);
        }
    }

    private static Object layerActive(Page page, String rid) {
        return page.evaluate("async (rid) => (await window.parleyApp.client.media.publishLayerStats()).find((l) => l.rid === rid)?.active", rid);
    }

    /** The tallest frame the viewer's video receivers decode now. */
    private static long frameHeight(Page page) {
        long max = 0;
        for (Map<String, Object> s : WebRtcStats.ofType(page, SUB, "inbound-rtp")) {
            if ("video".equals(s.get("kind"))) max = Math.max(max, num(s.get("frameHeight")));
        }
        return max;
    }

    private static long tagFailures(Page page) {
        return num(page.evaluate("() => window.parleyApp.client.e2ee.cryptor.latest.stats.tagFailures ?? 0"));
    }

    private static long num(Object o) {
        return o instanceof Number n ? n.longValue() : 0;
    }

    /** The spatial layer the SFU forwards to the viewer now (-1 when none). */
    private int spatial(String viewerPid) {
        for (JsonNode l : participant(viewerPid).path("video_layers")) return l.path("spatial").asInt(-1);
        return -1;
    }

    private JsonNode participant(String pid) {
        try {
            for (JsonNode m : JSON.readTree(sfuState()).path("meetings")) {
                for (JsonNode p : m.path("participants")) if (pid.equals(p.path("participant_id").asText())) return p;
            }
        } catch (Exception e) {
            // the next poll asks again
        }
        return JSON.createObjectNode();
    }

    private String sfuLine(String viewerPid, String hostPid) {
        JsonNode v = participant(viewerPid), h = participant(hostPid);
        return "viewer estimate " + v.path("congestion_control").path("estimate_bps").asLong() / 1000 + " kbps, layers "
                + v.path("video_layers") + "; host dynacast " + h.path("dynacast");
    }

    private String sfuState() throws Exception {
        int port = env.platform().sfuInternalPorts.values().iterator().next();
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/internal/v1/state"))
                .header("Authorization", "Bearer " + env.platform().internalSecret).timeout(Duration.ofSeconds(5)).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    private void testLink(String meetingId, String participantId, int capacityKbps) throws Exception {
        int port = env.platform().sfuInternalPorts.values().iterator().next();
        String body = "{\"meeting_id\":\"" + meetingId + "\",\"participant_id\":\"" + participantId + "\",\"capacity_kbps\":"
                + capacityKbps + ",\"delay_ms\":20,\"loss_percent\":0}";
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/internal/v1/test/link"))
                .header("Authorization", "Bearer " + env.platform().internalSecret).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isBetween(200, 299);
    }
}
