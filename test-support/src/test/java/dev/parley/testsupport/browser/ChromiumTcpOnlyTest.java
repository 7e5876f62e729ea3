package dev.parley.testsupport.browser;

import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.Page;
import dev.parley.testsupport.web.StaticServer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Chromium.Options#tcpOnlyWebRtc()} really keeps WebRTC off UDP (what ICE-TCP / TURN-TCP tests rely on). */
class ChromiumTcpOnlyTest {

    @Test
    void defaultGathersUdpButTcpOnlyGathersNone() {
        try (StaticServer web = StaticServer.ofClasspath("web")) {
            List<String> normal = candidates(Chromium.options(), web);
            List<String> tcpOnly = candidates(Chromium.options().tcpOnlyWebRtc(), web);
            assertThat(normal).anyMatch(c -> c.toLowerCase().contains(" udp "));
            assertThat(tcpOnly).noneMatch(c -> c.toLowerCase().contains(" udp "));
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> candidates(Chromium.Options options, StaticServer web) {
        try (Chromium chromium = Chromium.launch(options)) {
            Page page = chromium.newContext().newPage();
            page.navigate(web.url("/candidates.html"));
            page.waitForFunction("() => window.gathered !== null");
            return (List<String>) page.evaluate("() => window.gathered");
        }
    }
}
