package dev.parley.e2e.web;

import com.microsoft.playwright.Page;
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
 * Dynacast and pause notices end to end (issue 8): the real controller and SFU jars, two people in headless
 * Chromium using the real web app. The host's camera is 1280×720, so the SDK sends it as three simulcast
 * encodings (q/h/f); the viewer's layout decides what the SFU forwards to it.
 *
 * <ol>
 *   <li>Grid layout: the host's tile is small, so nobody receives the full-resolution layer. The SFU's dynacast
 *       tells the host (SFU → owner controller → only the host's socket) and the SDK sets that encoding
 *       {@code active: false}: the host's own {@code getStats} shows the {@code f} outbound stream inactive with
 *       its {@code bytesSent} standing still while {@code q} keeps growing.</li>
 *   <li>The viewer pins the host's tile (a large tile): its allocator asks for the top layer, dynacast resumes
 *       it at once, and {@code f}'s {@code bytesSent} grows again (its rate is measured).</li>
 *   <li>The viewer's downlink is limited to 50 kbit/s (the SFU's test-only link emulator): the SFU pauses the
 *       host's video for it and says so: the tile shows "Paused: low bandwidth"; with nobody receiving the top
 *       layer any more, {@code f} stops again (its rate falls to nothing from the rate measured in step 2).</li>
 *   <li>The limit is lifted: the video resumes and the label goes away.</li>
 * </ol>
 * Skips (with the reason) when the jars are not built.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DynacastBrowserIT {
    @RegisterExtension
    static final BrowserPlatform<LocalPlatform> env = BrowserPlatform.of(() -> LocalPlatform.missing(1),
            () -> LocalPlatform.start(1, Map.of("PARLEY_SFU_TEST_HOOKS", "true")));
    /** The host's camera at 1280×720 whatever the app asks for (so the SDK's automatic simulcast applies). */
    private static final String HD_CAMERA = """
        (() => {
          const md = navigator.mediaDevices;
          const original = md.getUserMedia.bind(md);
          md.getUserMedia = (c) => original(c && c.video
            ? { ...c, video: { ...(typeof c.video === 'object' ? c.video : {}), width: { exact: 1280 }, height: { exact: 720 } } }
            : c);
        })();
        """;
    private static final String LAYERS = "async () => await window.parleyApp.client.media.publishLayerStats()";
    private static final HttpClient HTTP = HttpClient.newHttpClient();


    @Test
    void theHostStopsEncodingTheLayerNobodyReceivesAndTheViewerIsToldWhenItsVideoPauses() throws Exception {
        try (BrowserParticipant host = new BrowserParticipant(env.browser(), env.platform().baseUrl(), "Hana Host");
             BrowserParticipant viewer = new BrowserParticipant(env.browser(), env.platform().baseUrl(), "Vik Viewer")) {
            host.page.addInitScript(HD_CAMERA);
            host.page.reload();
            String link = host.createAndJoin("Dynacast");
            viewer.join(link);
            host.awaitConnected(Duration.ofSeconds(30));
            viewer.awaitConnected(Duration.ofSeconds(30));
            String hostPid = host.pid();
            viewer.awaitVideoFrom(hostPid, Duration.ofSeconds(30));
            assertThat(layers(host.page).stream().map(l -> String.valueOf(l.get("rid"))).toList())
                    .as("the host sends three simulcast encodings").containsExactlyInAnyOrder("q", "h", "f");

            // 1. grid: the host's tile is small at the viewer; nobody receives f → the host stops encoding it
            long t0 = System.nanoTime();
            BrowserParticipant.awaitTrue(() -> Boolean.FALSE.equals(layer(host.page, "f").get("active")), Duration.ofSeconds(45),
                    "the host's f encoding inactive (dynacast)\n" + diagnostics(host, viewer));
            System.out.printf("dynacast: f inactive %.1f s after the viewer decoded the host%n", (System.nanoTime() - t0) / 1e9);
            assertStopped(host.page, "f", "nobody receives the full layer");
            // the SDK records the change after setParameters resolves, which can trail the sender's own stats
            BrowserParticipant.awaitTrue(() -> Boolean.FALSE.equals(host.page.evaluate(
                            "() => window.parleyApp.client.state.publishLayers.camera?.active?.[2]")),
                    Duration.ofSeconds(10), "the SDK state shows f off; state: " + host.page.evaluate(
                            "() => JSON.stringify(window.parleyApp.client.state.publishLayers)"));

            // 2. a large tile: the viewer pins the host → the top layer is needed again and resumes
            viewer.page.click("[data-testid=tile-" + hostPid + "-camera] button.pin");
            t0 = System.nanoTime();
            String viewerId = viewer.pid();
            double[] measured = {0};
            // the browser's own uplink estimate may hold a resumed encoding back for a moment: wait for it to flow
            BrowserParticipant.awaitTrue(() -> {
                        System.out.println("  climb: " + sfuLine(viewerId, hostPid) + "; f " + layer(host.page, "f"));
                        if (!Boolean.TRUE.equals(layer(host.page, "f").get("active"))) return false;
                        measured[0] = rate(host.page, "f", 2000);
                        return measured[0] > 50_000;
                    },
                    Duration.ofSeconds(90), "the host's f encoding sending again after the viewer pinned it\n" + diagnostics(host, viewer));
            double activeRate = measured[0];
            System.out.printf("dynacast: f resumed %.1f s after the pin; sends %.0f kbit/s%n", (System.nanoTime() - t0) / 1e9, activeRate / 1000);

            // 3. the viewer's downlink collapses: its video is paused (and it is told), f is needed by nobody
            String viewerPid = viewer.pid();
            String meetingId = String.valueOf(viewer.page.evaluate("() => window.parleyApp.client.meetingId"));
            testLink(meetingId, viewerPid, 50);
            t0 = System.nanoTime();
            viewer.page.waitForSelector("[data-testid=tile-" + hostPid + "-camera] [data-testid=video-paused]",
                    new Page.WaitForSelectorOptions().setTimeout(45_000));
            System.out.printf("pause: label shown %.1f s after the 50 kbit/s limit%n", (System.nanoTime() - t0) / 1e9);
            assertThat(viewer.page.textContent("[data-testid=tile-" + hostPid + "-camera] [data-testid=video-paused]"))
                    .isEqualTo("Paused: low bandwidth");
            java.nio.file.Path shots = java.nio.file.Paths.get("target", "screenshots");
            java.nio.file.Files.createDirectories(shots);
            viewer.page.screenshot(new Page.ScreenshotOptions().setPath(shots.resolve("dynacast-viewer-paused.png")));
            assertThat(viewer.page.evaluate("(t) => window.parleyApp.client.state.pausedSubscriptions[t]?.reason", hostPid + ":1"))
                    .isEqualTo("bandwidth");
            assertThat(host.page.evaluate("() => Object.keys(window.parleyApp.client.state.pausedSubscriptions).length"))
                    .as("the host was not told about the viewer's pause").isEqualTo(0);
            BrowserParticipant.awaitTrue(() -> Boolean.FALSE.equals(layer(host.page, "f").get("active")), Duration.ofSeconds(30),
                    "the host's f encoding inactive again once nobody receives it\n" + diagnostics(host, viewer));
            double stoppedRate = assertStopped(host.page, "f", "the only receiver of f is paused");
            // the SFU's quality report for the viewer (its own socket only) says poor: video paused for bandwidth
            BrowserParticipant.awaitTrue(() -> "poor".equals(viewer.page.evaluate("() => window.parleyApp.client.state.quality.serverLevel")),
                    Duration.ofSeconds(20), "the viewer's server-side quality level poor\n" + diagnostics(host, viewer));
            assertThat(viewer.page.evaluate("() => window.parleyApp.client.state.quality.level")).isIn("poor", "lost");
            System.out.printf("dynacast: f rate %.0f kbit/s → %.0f kbit/s%n", activeRate / 1000, stoppedRate / 1000);

            // 4. the limit is lifted: the viewer's video resumes and the label goes away
            testLink(meetingId, viewerPid, 0);
            t0 = System.nanoTime();
            viewer.page.waitForSelector("[data-testid=tile-" + hostPid + "-camera] [data-testid=video-paused]",
                    new Page.WaitForSelectorOptions().setState(com.microsoft.playwright.options.WaitForSelectorState.DETACHED).setTimeout(45_000));
            System.out.printf("pause: label gone %.1f s after lifting the limit%n", (System.nanoTime() - t0) / 1e9);
            viewer.awaitVideoFrom(hostPid, Duration.ofSeconds(30));
        }
    }

    /**
     * f's bytesSent stands still over 3 s while q's grows; returns f's rate in bit/s (≈ 0). Measured from 1.5 s
     * after the encoding went inactive: packets already in the browser's pacer queue still leave after the switch.
     */
    private static double assertStopped(Page page, String rid, String why) {
        BrowserParticipant.sleep(1500);
        Map<?, ?> a = layer(page, rid), qa = layer(page, "q");
        BrowserParticipant.sleep(3000);
        Map<?, ?> b = layer(page, rid), qb = layer(page, "q");
        long fDelta = num(b.get("bytesSent")) - num(a.get("bytesSent"));
        long qDelta = num(qb.get("bytesSent")) - num(qa.get("bytesSent"));
        System.out.printf("%s: %s %d bytes, q %d bytes in 3 s (%s)%n", why, rid, fDelta, qDelta, b);
        assertThat(fDelta).as("%s: bytes sent on %s in 3 s", why, rid).isLessThanOrEqualTo(2_000);
        assertThat(qDelta).as("%s: the low layer keeps going", why).isGreaterThan(10_000);
        return fDelta * 8 / 3.0;
    }

    /** Bits per second sent on {@code rid} over {@code ms}. */
    private static double rate(Page page, String rid, long ms) {
        long a = num(layer(page, rid).get("bytesSent"));
        BrowserParticipant.sleep(ms);
        long b = num(layer(page, rid).get("bytesSent"));
        return (b - a) * 8000.0 / ms;
    }

    private static List<Map<?, ?>> layers(Page page) {
        return ((List<?>) page.evaluate(LAYERS)).stream().<Map<?, ?>>map(o -> (Map<?, ?>) o).toList();
    }

    private static Map<?, ?> layer(Page page, String rid) {
        return layers(page).stream().filter(l -> rid.equals(l.get("rid"))).findFirst().orElse(Map.of());
    }

    private static long num(Object o) {
        return o instanceof Number n ? n.longValue() : 0;
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

    /** The SFU's view of the viewer (estimate, budget, desired, forwarded layer) and the host's dynacast state. */
    private String sfuLine(String viewerPid, String hostPid) {
        try {
            var root = new com.fasterxml.jackson.databind.ObjectMapper().readTree(sfuState());
            StringBuilder b = new StringBuilder();
            for (var m : root.path("meetings")) {
                for (var p : m.path("participants")) {
                    String id = p.path("participant_id").asText();
                    if (id.equals(viewerPid)) {
                        var cc = p.path("congestion_control");
                        b.append("viewer estimate ").append(cc.path("estimate_bps").asLong() / 1000).append(" budget ")
                                .append(cc.path("budget_bps").asLong() / 1000).append(" desired ").append(cc.path("desired_bps").asLong() / 1000)
                                .append(" kbps");
                        for (var l : p.path("video_layers")) {
                            b.append("; spatial ").append(l.path("spatial").asInt()).append(" → ").append(l.path("target_spatial").asInt());
                        }
                    } else if (id.equals(hostPid)) {
                        for (var d : p.path("dynacast")) b.append("host told to send up to layer ").append(d.asInt()).append("; ");
                    }
                }
            }
            return b.toString();
        } catch (Exception e) {
            return "(no SFU state: " + e + ")";
        }
    }

    private String sfuState() throws Exception {
        int port = env.platform().sfuInternalPorts.values().iterator().next();
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/internal/v1/state"))
                .header("Authorization", "Bearer " + env.platform().internalSecret).timeout(Duration.ofSeconds(5)).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    private String diagnostics(BrowserParticipant host, BrowserParticipant viewer) {
        try {
            String state = sfuState();
            return "host layers: " + layers(host.page) + "\nhost publishLayers: "
                    + host.page.evaluate("() => JSON.stringify(window.parleyApp.client.state.publishLayers)")
                    + "\nviewer: " + viewer.diagnostics() + "\nSFU state: " + state;
        } catch (Exception | AssertionError e) {
            return "(no diagnostics: " + e + ")";
        }
    }
}
