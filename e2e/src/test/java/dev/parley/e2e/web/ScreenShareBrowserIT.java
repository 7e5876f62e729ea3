package dev.parley.e2e.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole path of a screen share's source, on the real platform (controller and SFU processes, the web app in
 * headless Chromium): the host shares a canvas track with the SDK's {@code shareScreen(track)}; its publish
 * offer declares mid 2 {@code source: screen}; the controller relays that to the SFU; the SFU forwards the
 * track and tells the viewer it is a screen ({@code track_published}, slot assignments), so the viewer's SDK
 * files it under {@code tracks.screen} (not over the camera) and decodes it. The viewer pins the host: its
 * {@code subscribe} carries {@code pinned}, which the SFU holds. The SFU's quality report carries the round
 * trip it measured toward the viewer into the SDK's {@code quality.server.rttMs}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScreenShareBrowserIT {
    @RegisterExtension
    static final BrowserPlatform<LocalPlatform> env = BrowserPlatform.of(() -> LocalPlatform.missing(1),
            () -> LocalPlatform.start(1, Map.of()));
    /** A moving canvas as the "screen" (getDisplayMedia needs a picker; the SDK takes any video track). */
    private static final String SHARE_CANVAS = """
        async () => {
          const c = document.createElement('canvas');
          c.width = 1280; c.height = 720;
          const g = c.getContext('2d');
          let n = 0;
          setInterval(() => { g.fillStyle = `hsl(${(n++ * 7) % 360} 60% 50%)`; g.fillRect(0, 0, 1280, 720);
                              g.fillStyle = '#000'; g.font = '64px sans-serif'; g.fillText('slide ' + n, 100, 200); }, 66);
          const track = c.captureStream(15).getVideoTracks()[0];
          return await window.parleyApp.client.shareScreen(track);
        }
        """;
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();


    @Test
    void aSharedScreenReachesTheViewerAsAScreenAndPinsAndRoundTripReachTheSfuAndSdk() throws Exception {
        try (BrowserParticipant host = new BrowserParticipant(env.browser(), env.platform().baseUrl(), "Hana Host");
             BrowserParticipant viewer = new BrowserParticipant(env.browser(), env.platform().baseUrl(), "Vik Viewer")) {
            String link = host.createAndJoin("Screen share");
            viewer.join(link);
            host.awaitConnected(Duration.ofSeconds(30));
            viewer.awaitConnected(Duration.ofSeconds(30));
            String hostPid = host.pid(), viewerPid = viewer.pid();
            viewer.awaitVideoFrom(hostPid, Duration.ofSeconds(30));

            assertThat(host.page.evaluate(SHARE_CANVAS)).as("shareScreen(track)").isEqualTo(true);

            // the viewer's SDK attached the new track as the host's screen (slot assignment source: screen)
            String screenOf = "() => JSON.stringify(window.parleyApp.client.state.participants['" + hostPid + "']?.tracks ?? {})";
            BrowserParticipant.awaitTrue(() -> {
                JsonNode t = tree(viewer.page.evaluate(screenOf));
                return t.path("screen").path("attached").asBoolean() && t.path("screen").path("trackId").asText().endsWith(":2");
            }, Duration.ofSeconds(30), "the viewer's state has the host's screen track\n" + viewer.page.evaluate(screenOf));
            JsonNode tracks = tree(viewer.page.evaluate(screenOf));
            assertThat(tracks.path("camera").path("trackId").asText()).as("the camera stays the camera").endsWith(":1");

            // and decodes it, on the slot the SFU assigned as a screen
            BrowserParticipant.awaitTrue(() -> screenFrames(viewer, hostPid) > 10, Duration.ofSeconds(30),
                    "the viewer decodes the host's screen\n" + viewer.diagnostics());
            JsonNode viewerState = sfuParticipant(viewerPid);
            assertThat(viewerState.path("slots").toString()).contains("\"track_id\":\"" + hostPid + ":2\"");
            for (JsonNode s : viewerState.path("slots")) {
                if (s.path("track_id").asText().equals(hostPid + ":2")) assertThat(s.path("source").asText()).isEqualTo("screen");
                if (s.path("track_id").asText().equals(hostPid + ":1")) assertThat(s.path("source").asText()).isEqualTo("camera");
            }
            assertThat(sfuParticipant(hostPid).path("track_sources").path(hostPid + ":2").asText()).isEqualTo("screen");

            // the viewer pins the host's camera tile: its subscribe says pinned, the SFU holds the pin
            viewer.page.click("[data-testid=tile-" + hostPid + "-camera] button.pin");
            BrowserParticipant.awaitTrue(() -> sfuPinned(viewerPid).contains("\"" + hostPid + ":1\""), Duration.ofSeconds(15),
                    "the SFU holds the viewer's pin: " + sfuPinned(viewerPid));
            viewer.page.click("[data-testid=tile-" + hostPid + "-camera] button.pin");
            BrowserParticipant.awaitTrue(() -> sfuPinned(viewerPid).equals("[]"), Duration.ofSeconds(15),
                    "the SFU dropped the pin: " + sfuPinned(viewerPid));

            // the SFU's quality report for the viewer carries the round trip it measured from the viewer's receiver reports
            BrowserParticipant.awaitTrue(() -> {
                Object rtt = viewer.page.evaluate("() => window.parleyApp.client.state.quality.server?.rttMs ?? null");
                return rtt instanceof Number n && n.doubleValue() >= 0 && n.doubleValue() < 1000;
            }, Duration.ofSeconds(30), "quality.server.rttMs at the viewer: "
                    + viewer.page.evaluate("() => JSON.stringify(window.parleyApp.client.state.quality)"));
            assertThat(viewer.page.getAttribute("[data-testid=quality]", "title")).contains("round trip");
            System.out.println("screen share: viewer's SFU round trip " + sfuParticipant(viewerPid).path("rtt_ms") + " ms; SDK "
                    + viewer.page.evaluate("() => JSON.stringify(window.parleyApp.client.state.quality)"));
        }
    }

    private static JsonNode tree(Object json) {
        try {
            return JSON.readTree(String.valueOf(json));
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + json, e);
        }
    }

    private static double screenFrames(BrowserParticipant p, String pid) {
        Object r = p.page.evaluate("async (pid) => { const c = window.parleyApp.client; if (!c.media) return 0;"
                + " const t = (await c.media.stats()).tracks.find(t => t.participantId === pid && t.source === 'screen');"
                + " return t ? t.framesDecoded : 0; }", pid);
        return r instanceof Number n ? n.doubleValue() : 0;
    }

    private String sfuPinned(String pid) {
        try {
            return sfuParticipant(pid).path("pinned").toString();
        } catch (Exception e) {
            return "(state unavailable: " + e.getMessage() + ")";
        }
    }

    /** The participant's entry in the SFU's GET /state. */
    private JsonNode sfuParticipant(String pid) throws Exception {
        int port = env.platform().sfuInternalPorts.values().iterator().next();
        String body = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/internal/v1/state"))
                .header("Authorization", "Bearer " + env.platform().internalSecret).timeout(Duration.ofSeconds(5)).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body();
        for (JsonNode m : JSON.readTree(body).path("meetings")) {
            for (JsonNode p : m.path("participants")) if (pid.equals(p.path("participant_id").asText())) return p;
        }
        return JSON.missingNode();
    }
}
