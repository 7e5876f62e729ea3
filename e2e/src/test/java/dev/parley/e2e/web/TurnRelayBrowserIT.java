package dev.parley.e2e.web;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import dev.parley.testsupport.browser.WebRtcStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Headless Chromium with {@code iceTransportPolicy: "relay"} reaches the Parley SFU only through the Parley TURN pod
 * and decodes video. Two participants use the real web app; an init script makes every RTCPeerConnection of the
 * page relay-only (as a client behind a UDP-blocking firewall would configure it), so the browsers gather no host
 * or server-reflexive candidates at all. The controller finds the TURN pod in etcd and hands it out with REST
 * credentials; the TURN pod relays to the SFU on loopback because loopback is in its peer allow list.
 *
 * <p>Shown: every selected candidate pair (publish and subscribe, both browsers) has a {@code relay} local
 * candidate, every local candidate is a transport address on the TURN pod's relay ports (no host candidate exists),
 * framesDecoded grows in both directions, and the TURN pod's own counters show the allocations and the relayed
 * packets. Skips (with the reason) when the jars are not built.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TurnRelayBrowserIT {
    @RegisterExtension
    static final BrowserPlatform<RelayPlatform> env = BrowserPlatform.of(RelayPlatform::missing,
            RelayPlatform::start);
    /** Forces relay-only ICE on every peer connection the app creates, also through setConfiguration. */
    private static final String RELAY_ONLY = """
        (() => {
          const Native = window.RTCPeerConnection;
          const relay = (cfg) => Object.assign({}, cfg || {}, { iceTransportPolicy: 'relay' });
          class RelayOnly extends Native {
            constructor(cfg, ...rest) { super(relay(cfg), ...rest); }
            setConfiguration(cfg) { return super.setConfiguration(relay(cfg)); }
          }
          window.RTCPeerConnection = RelayOnly;
        })();
        """;
    private static final String SUB = "window.parleyApp.client.media.sub";
    private static final String PUB = "window.parleyApp.client.media.pub";


    @Test
    void relayOnlyBrowsersReachTheSfuThroughParleyTurnAndDecodeVideo() throws Exception {
        Page host = person("Rita Relay");
        signIn(host, "Rita Relay");
        host.fill("[data-testid=create-title]", "Relay only");
        host.uncheck("[data-testid=create-waiting-room]"); // the guest joins straight in
        host.click("[data-testid=create-submit]");
        String link = host.inputValue("[data-testid=share-link]");
        host.click("[data-testid=share-join]");
        host.click("[data-testid=prejoin-join]");
        host.waitForSelector("[data-testid=meeting]");

        Page guest = person("Tom Turn");
        guest.navigate(link);
        signIn(guest, "Tom Turn");
        guest.click("[data-testid=prejoin-join]");
        guest.waitForSelector("[data-testid=meeting]", new Page.WaitForSelectorOptions().setTimeout(30000));

        // Polled, not sampled once: on a loaded machine the app may renegotiate (a new transport generation replaces
        // its peer connections), and every check must then hold again on the new ones.
        for (Page p : List.of(host, guest)) {
            awaitTrue(() -> framesDecoded(p) > 0, Duration.ofSeconds(90), "first decoded remote frame", p);
        }
        for (Page p : List.of(host, guest)) {
            awaitTrue(() -> decodesAndRelaysOnly(p), Duration.ofSeconds(60),
                "framesDecoded grows with relay-only candidates on both peer connections", p);
        }
        // The relay that carried it is ours: two participants × (publish + subscribe) allocations, packets both ways.
        double allocations = env.platform().turnMetric("parley_turn_allocations");
        double up = env.platform().turnMetric("parley_turn_relayed_packets_total{direction=\"client_to_peer\"}");
        double down = env.platform().turnMetric("parley_turn_relayed_packets_total{direction=\"peer_to_client\"}");
        assertThat(allocations).as("TURN allocations").isGreaterThanOrEqualTo(2);
        assertThat(up).as("packets relayed browser → SFU").isGreaterThan(100);
        assertThat(down).as("packets relayed SFU → browser").isGreaterThan(100);
        System.out.printf("TurnRelayBrowserIT: relay-only pairs decode (framesDecoded host %d, guest %d);"
                + " TURN allocations %.0f, relayed packets up %.0f, down %.0f%n",
            framesDecoded(host), framesDecoded(guest), allocations, up, down);
    }

    private Page person(String name) {
        BrowserContext ctx = env.browser().newContext(new Browser.NewContextOptions()
            .setViewportSize(1280, 720).setPermissions(List.of("camera", "microphone")));
        ctx.addInitScript(RELAY_ONLY);
        Page page = ctx.newPage();
        page.onConsoleMessage(m -> System.out.println("[" + name + " " + m.type() + "] " + m.text()));
        page.onPageError(e -> System.out.println("[" + name + " pageerror] " + e));
        page.navigate(env.platform().baseUrl() + "/");
        return page;
    }

    private static void signIn(Page p, String name) {
        p.waitForSelector("[data-testid=signin-name]", new Page.WaitForSelectorOptions().setTimeout(15000));
        p.fill("[data-testid=signin-name]", name);
        p.click("[data-testid=signin-submit]");
    }

    /** Sum of framesDecoded on the page's subscribe connection (0 before it exists or while it is replaced). */
    private static long framesDecoded(Page p) {
        try {
            Object ready = p.evaluate("() => !!window.parleyApp?.client?.media?.sub");
            return Boolean.TRUE.equals(ready) ? WebRtcStats.framesDecoded(p, SUB) : 0;
        } catch (PlaywrightException e) { // the app replaced its peer connections between the two calls
            return 0;
        }
    }

    /**
     * framesDecoded grows over 700 ms, and on both peer connections the selected pair's local candidate is a
     * {@code relay} candidate and every local candidate is a transport address on the TURN pod's relay ports: relay
     * candidates, or peer-reflexive ones Chrome learns when the SFU sees a request arrive from another of this
     * browser's allocations. A host candidate would have a port outside that range.
     */
    private boolean decodesAndRelaysOnly(Page p) {
        try {
            long before = framesDecoded(p);
            Thread.sleep(700);
            if (framesDecoded(p) <= before) return false;
            for (String pc : List.of(PUB, SUB)) {
                Object r = p.evaluate("async () => { const pc = " + pc + "; const r = await pc.getStats(); let pairId = null;"
                    + " r.forEach(s => { if (s.type === 'transport' && s.selectedCandidatePairId) pairId = s.selectedCandidatePairId; });"
                    + " const pair = pairId ? r.get(pairId) : null; const sel = pair ? r.get(pair.localCandidateId) : null;"
                    + " const locals = []; r.forEach(s => { if (s.type === 'local-candidate') locals.push(s.candidateType + ':' + s.port); });"
                    + " return { selected: sel ? sel.candidateType : null, locals }; }");
                if (!(r instanceof Map<?, ?> m) || !"relay".equals(m.get("selected"))
                    || !(m.get("locals") instanceof List<?> locals) || locals.isEmpty()) {
                    return false;
                }
                for (Object local : locals) {
                    int port = Integer.parseInt(String.valueOf(local).substring(String.valueOf(local).indexOf(':') + 1));
                    if (!env.platform().isRelayPort(port)) {
                        throw new AssertionError(pc + " has a local candidate that is not on the TURN relay: " + locals);
                    }
                }
            }
            return true;
        } catch (PlaywrightException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void awaitTrue(BooleanSupplier cond, Duration timeout, String what, Page p) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (cond.getAsBoolean()) return;
            Thread.sleep(250);
        }
        throw new AssertionError(what + " within " + timeout + " at " + p.url() + "\nICE: " + iceState(p)
            + "\nTURN metrics:\n" + relevant(env.platform().turnMetrics()) + "\nTURN log:\n" + env.platform().turnLogTail());
    }

    private static Object iceState(Page p) {
        try {
            return p.evaluate("async () => { const m = window.parleyApp?.client?.media; if (!m) return 'no media';"
                + " const pairs = async (pc) => { const out = []; (await pc.getStats()).forEach(s => {"
                + " if (s.type === 'candidate-pair' || s.type === 'local-candidate' || s.type === 'remote-candidate')"
                + " out.push([s.type, s.state || s.candidateType, s.address, s.port, s.protocol]); }); return out; };"
                + " return JSON.stringify({ pub: [m.pub.iceConnectionState, await pairs(m.pub)],"
                + " sub: [m.sub.iceConnectionState, await pairs(m.sub)], policy: m.pub.getConfiguration().iceTransportPolicy,"
                + " urls: (m.pub.getConfiguration().iceServers || []).map(s => s.urls) }); }"); // never the credential
        } catch (RuntimeException e) {
            return "(no ICE state: " + e.getMessage() + ")";
        }
    }

    private static String relevant(String metrics) {
        StringBuilder b = new StringBuilder();
        for (String line : metrics.split("\n")) {
            if (!line.startsWith("#") && !line.endsWith(" 0")) b.append("  ").append(line).append('\n');
        }
        return b.toString();
    }
}
