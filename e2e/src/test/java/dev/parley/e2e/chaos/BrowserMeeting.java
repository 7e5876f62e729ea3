package dev.parley.e2e.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.e2e.web.BrowserParticipant;
import dev.parley.testsupport.browser.Chromium;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Two headless Chromium participants (e2e's {@link BrowserParticipant}, the real web app served through the front
 * door) in one meeting: a host and a guest. Playwright must be driven from one thread, so everything here runs on
 * its own thread, which also samples both pages' WebRTC receive counters every 250 ms into the {@link MediaLedger}.
 *
 * <p>Media goes through the impairment proxies: an init script rewrites the UDP candidate of every SFU answer to its
 * proxy's port and drops the ICE-TCP candidate before {@code setRemoteDescription}, so the browser's only path to the
 * SFU (direct, or relayed by TURN to the same candidate) crosses the proxy.
 */
final class BrowserMeeting implements AutoCloseable {
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "chaos-browsers");
        t.setDaemon(true);
        return t;
    });
    private final ChaosPlatform platform;
    private final MediaLedger ledger;
    private Chromium chromium;
    private BrowserParticipant host, guest;
    volatile String meetingId, hostPid, guestPid, hostToken, hostPrincipal;
    private volatile boolean sampling;

    BrowserMeeting(ChaosPlatform platform, MediaLedger ledger) {
        this.platform = platform;
        this.ledger = ledger;
    }

    /** Starts Chromium, creates the meeting as the host, joins the guest; both connected and decoding each other. */
    void start() throws Exception {
        run(() -> {
            chromium = Chromium.launch(Chromium.options().arg("--autoplay-policy=no-user-gesture-required"));
            String script = proxyScript(platform);
            host = new BrowserParticipant(chromium.browser(), platform.baseUrl(), "Hana Host", script);
            String link = host.createAndJoin("chaos browsers");
            meetingId = link.substring(link.indexOf("#/m/") + 4);
            host.awaitConnected(Duration.ofSeconds(60));
            guest = new BrowserParticipant(chromium.browser(), platform.baseUrl(), "Gus Guest", script);
            guest.join(link);
            guest.awaitConnected(Duration.ofSeconds(60));
            hostPid = host.pid();
            guestPid = guest.pid();
            JsonNode session = Api.JSON.readTree(String.valueOf(host.page.evaluate("() => sessionStorage.getItem('parley.session')")));
            hostToken = session.path("token").asText();
            hostPrincipal = session.path("principalId").asText(session.path("principal").asText(""));
            return null;
        }, 180);
        sampling = true;
        thread.scheduleWithFixedDelay(this::sampleOnce, 250, 250, TimeUnit.MILLISECONDS);
    }

    static String proxyScript(ChaosPlatform p) {
        String map = p.proxies.entrySet().stream().map(e -> "\"" + e.getKey() + "\":" + e.getValue().port())
            .collect(Collectors.joining(",", "{", "}"));
        return "(() => { const map = " + map + "; const orig = RTCPeerConnection.prototype.setRemoteDescription;"
            + " RTCPeerConnection.prototype.setRemoteDescription = function (d) {"
            + "  if (d && d.sdp) { const sdp = d.sdp.split('\\r\\n').filter(l => !(l.startsWith('a=candidate:') && / tcp /i.test(l)))"
            + "   .map(l => { if (!l.startsWith('a=candidate:')) return l; const f = l.split(' ');"
            + "    if (f[2].toLowerCase() === 'udp' && map[f[5]]) f[5] = String(map[f[5]]); return f.join(' '); }).join('\\r\\n');"
            + "   d = { type: d.type, sdp }; }"
            + "  return orig.call(this, d); }; })();";
    }

    private void sampleOnce() {
        if (!sampling) return;
        try {
            sample(host, guestPid);
            sample(guest, hostPid);
        } catch (RuntimeException e) {
            // a page busy reconnecting: next round
        }
    }

    private void sample(BrowserParticipant b, String from) {
        Object r = b.page.evaluate("async (pid) => { const c = window.parleyApp?.client; if (!c?.media) return 0;"
            + " const st = await c.media.stats(); let n = 0; for (const t of st.tracks) if (t.participantId === pid) n += (t.packetsReceived || 0);"
            + " return n; }", from);
        long n = r instanceof Number x ? x.longValue() : 0;
        ledger.record(meetingId, b == host ? hostPid : guestPid, from, System.nanoTime(), System.currentTimeMillis(), n, true);
    }

    List<String> pids() {
        return hostPid == null ? List.of() : List.of(hostPid, guestPid);
    }

    /** Drops the guest's signaling socket the way the SDK test hook does (the SDK resumes by itself). */
    void dropGuestSocket() throws Exception {
        run(() -> guest.page.evaluate("() => window.parleyApp.client.signaling.drop()"), 20);
    }

    String diagnostics() {
        try {
            return run(() -> "host " + host.diagnostics() + "\nguest " + guest.diagnostics(), 20);
        } catch (Exception e) {
            return "(no diagnostics: " + e + ")";
        }
    }

    private <T> T run(Callable<T> c, int seconds) throws Exception {
        return thread.submit(c).get(seconds, TimeUnit.SECONDS);
    }

    /** Closes both pages (their peer connections and sockets) and Chromium. */
    @Override
    public void close() {
        if (thread.isShutdown()) return;
        sampling = false;
        try {
            run(() -> {
                for (BrowserParticipant b : new BrowserParticipant[] {guest, host}) {
                    // leave first: the SDK closes its peer connections, and Chromium releases its TURN allocations
                    try {
                        if (b != null) b.page.click("[data-testid=leave]", new com.microsoft.playwright.Page.ClickOptions().setTimeout(5000));
                    } catch (RuntimeException e) {
                        // already gone
                    }
                }
                Api.sleep(2000);
                if (guest != null) guest.close();
                if (host != null) host.close();
                if (chromium != null) chromium.close();
                return null;
            }, 60);
        } catch (Exception e) {
            ChaosPlatform.log("closing browsers: %s", e);
        }
        thread.shutdownNow();
    }

    Map<String, String> describe() {
        return Map.of("meeting", String.valueOf(meetingId), "host", String.valueOf(hostPid), "guest", String.valueOf(guestPid));
    }
}
