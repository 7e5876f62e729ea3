package dev.parley.testsupport.browser;

import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.Page;
import dev.parley.testsupport.web.StaticServer;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ChromiumExtensionTest {

    @RegisterExtension
    static ChromiumExtension chromium = new ChromiumExtension();

    static StaticServer server;

    @BeforeAll
    static void serve() {
        server = StaticServer.ofClasspath("web");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void fakeCameraIsLiveAndLoopbackPeerConnectionDecodesFrames(Page page) {
        page.navigate(server.url("/loopback.html"));
        page.waitForFunction("() => window.result.state !== 'starting'");
        @SuppressWarnings("unchecked")
        Map<String, Object> result = (Map<String, Object>) page.evaluate("() => window.result");
        assertThat(result).containsEntry("state", "negotiated").containsEntry("secure", true);
        assertThat(page.evaluate("() => window.localTrack.readyState")).isEqualTo("live");
        assertThat(page.evaluate("() => window.localTrack.label")).asString().isNotEmpty();

        page.waitForFunction("() => window.pc2.connectionState === 'connected'", null,
                new Page.WaitForFunctionOptions().setTimeout(20_000));
        long deadline = System.nanoTime() + 20_000_000_000L;
        long frames = 0;
        while (frames == 0 && System.nanoTime() < deadline) {
            page.waitForTimeout(200);
            frames = WebRtcStats.framesDecoded(page, "window.pc2");
        }
        assertThat(frames).isPositive();
        assertThat(WebRtcStats.packetsReceived(page, "window.pc2", "audio")).isPositive();
        assertThat(WebRtcStats.selectedCandidate(page, "window.pc2")).startsWith("host/");
    }

    @Test
    void staticServerReturns404ForUnknownPaths(Page page) {
        var response = page.navigate(server.url("/missing.html"));
        assertThat(response.status()).isEqualTo(404);
    }
}
