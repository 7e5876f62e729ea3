package dev.parley.e2e.web;

import com.microsoft.playwright.Page;
import dev.parley.testsupport.browser.WebRtcStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * End-to-end encrypted meetings on the whole platform (real controller and SFU jars, PostgreSQL, etcd, headless
 * Chromium running the web app), docs/e2ee.md:
 * <ol>
 *   <li>Three people in an e2ee meeting decode each other's video and audio; they see "End-to-end encrypted" and the
 *       same security code.</li>
 *   <li>A fourth browser, admitted with a valid grant but whose key messages are dropped by the SDK's test hook
 *       ({@code window.__parleyTestHooks.withholdE2eeKeys}), receives the video packets and decodes 0 frames: the SFU
 *       forwards ciphertext. Its tiles say "Waiting for keys". The same hook in a transport meeting changes nothing:
 *       that browser decodes normally.</li>
 *   <li>Active speaker works (RFC 6464 levels are outside the encrypted frame).</li>
 *   <li>The host removes C: every remaining sender uses a new key within 1 s, and C never receives it.</li>
 * </ol>
 * The removal runs with C's media path kept alive past it (the SFU's test-only keep-after-removal hook, and C's page
 * ignoring its removal): C still receives the remaining senders' packets and decodes none of them. A browser with
 * no encoded-transform API is refused at join ({@code e2ee_unsupported}). Skips (with the reason) when the jars are
 * not built.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class E2eeBrowserIT {
    @RegisterExtension
    static final BrowserPlatform<LocalPlatform> env = BrowserPlatform.of(() -> LocalPlatform.missing(1),
            () -> LocalPlatform.start(1, Map.of("PARLEY_SFU_TEST_HOOKS", "true")));
    private static final String WITHHOLD = "window.__parleyTestHooks = { withholdE2eeKeys: true };";
    private static final String SUB = "window.parleyApp.client.media.sub";

    /**
     * Each page's camera is asked for 320×180 at 15 fps (one simulcast layer) instead of the app's 640×360 at 24: four
     * pages encoding, encrypting, decrypting and decoding on this machine's two cores starved the controller and the
     * pages' own key work, and what this class times is the key schedule, not the encoder (the removal's rotation
     * took up to 1.2 s, of which the departure reaching the pages 0.25–0.65 s).
     */
    private static final String SMALL_CAMERA = """
            (() => { const md = navigator.mediaDevices, gum = md.getUserMedia.bind(md);
              md.getUserMedia = (c) => gum(c && c.video ? { ...c, video: { ...(typeof c.video === 'object' ? c.video : {}),
                width: { ideal: 320 }, height: { ideal: 180 }, frameRate: { ideal: 15 } } } : c); })();""";

    private BrowserParticipant person(String name, String init) {
        return new BrowserParticipant(env.browser(), env.platform().baseUrl(), name, init == null ? SMALL_CAMERA : SMALL_CAMERA + init);
    }

    /** Creates a meeting of the given mode through the UI (no waiting room) and joins it; returns the share link. */
    private static String create(BrowserParticipant p, String mode) {
        p.signIn();
        p.page.fill("[data-testid=create-title]", "E2EE " + mode);
        p.page.uncheck("[data-testid=create-waiting-room]");
        p.page.selectOption("[data-testid=create-encryption]", mode);
        p.page.click("[data-testid=create-submit]");
        String link = p.page.inputValue("[data-testid=share-link]");
        p.page.click("[data-testid=share-join]");
        p.page.click("[data-testid=prejoin-join]");
        p.page.waitForSelector("[data-testid=meeting]", new Page.WaitForSelectorOptions().setTimeout(20000));
        return link;
    }

    private static final String KEPT_SUB = "window.__keptMedia.sub";
    private static final java.net.http.HttpClient HTTP = java.net.http.HttpClient.newHttpClient();

    /** The SFU's test-only hook: the participant's coming release is ignored (its transports and subscriptions stay). */
    private static void keepAfterRemoval(String meetingId, String participantId) {
        int port = env.platform().sfuInternalPorts.values().iterator().next();
        String body = "{\"meeting_id\":\"" + meetingId + "\",\"participant_id\":\"" + participantId + "\"}";
        try {
            var r = HTTP.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/internal/v1/test/keep-after-removal"))
                    .header("Authorization", "Bearer " + env.platform().internalSecret).header("Content-Type", "application/json")
                    .timeout(Duration.ofSeconds(10)).POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        } catch (java.io.IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Object e2ee(BrowserParticipant p, String expr) {
        return p.page.evaluate("() => { const c = window.parleyApp.client; return " + expr + "; }");
    }

    private static long num(Object o) {
        return o instanceof Number n ? n.longValue() : 0;
    }

    private static String status(BrowserParticipant p) {
        return String.valueOf(e2ee(p, "JSON.stringify({ e2ee: c.state.e2ee, counts: c.e2ee?.session.counts, worker: c.e2ee?.cryptor.latest, history: c.e2ee?.session.history })"));
    }

    @Test
    void threeDecodeEachOtherAFourthWithoutKeysDecodesNothingAndARemovalRotatesEveryKeyWithinASecond() {
        try (BrowserParticipant host = person("Hana Host", null);
             BrowserParticipant b = person("Bo Bright", null);
             BrowserParticipant c = person("Cy Cole", null);
             BrowserParticipant d = person("Dee Withheld", WITHHOLD)) {
            String link = create(host, "e2ee");
            b.join(link);
            c.join(link);
            List<BrowserParticipant> three = List.of(host, b, c);
            for (BrowserParticipant p : three) p.awaitConnected(Duration.ofSeconds(30));
            for (BrowserParticipant rx : three) {
                for (BrowserParticipant tx : three) {
                    if (rx != tx) rx.awaitVideoFrom(tx.pid(), Duration.ofSeconds(40));
                }
            }
            for (BrowserParticipant p : three) {
                BrowserParticipant.awaitTrue(() -> "encrypted".equals(e2ee(p, "c.state.e2ee?.meeting")), Duration.ofSeconds(10),
                        p.name + " shows encrypted: " + status(p));
                assertThat(String.valueOf(e2ee(p, "c.state.e2ee.path"))).isEqualTo("script-transform");
                // audio: every other member's frames (audio and video) decrypt here
                for (BrowserParticipant tx : three) {
                    if (tx != p) {
                        assertThat(num(e2ee(p, "c.e2ee.cryptor.latest.decryptedBy['" + tx.pid() + "'] ?? 0"))).as(p.name + " decrypts " + tx.name).isPositive();
                    }
                }
                assertThat(WebRtcStats.packetsReceived(p.page, SUB, "audio")).as(p.name + " receives audio").isPositive();
            }
            String code = String.valueOf(e2ee(host, "c.state.e2ee.securityCode"));
            assertThat(code).matches("\\d{5} \\d{5} \\d{5} \\d{5}");
            BrowserParticipant.awaitTrue(() -> code.equals(e2ee(b, "c.state.e2ee.securityCode")) && code.equals(e2ee(c, "c.state.e2ee.securityCode")),
                    Duration.ofSeconds(5), "the same security code everywhere");
            assertThat(host.page.textContent("[data-testid=e2ee-status]")).contains("End-to-end encrypted");
            assertThat(host.page.textContent("[data-testid=e2ee-code]")).contains(code);

            // active speaker still works: the audio level is an RTP header extension, outside the encrypted frame
            BrowserParticipant.awaitTrue(() -> three.stream().anyMatch(p -> num(e2ee(p, "c.state.activeSpeakers.length")) > 0),
                    Duration.ofSeconds(20), "someone is an active speaker (RFC 6464 levels reach the SFU)");

            // 2. a fourth browser on the media path without keys: packets arrive, nothing decodes
            d.join(link);
            d.awaitConnected(Duration.ofSeconds(30));
            String hostPid = host.pid();
            BrowserParticipant.awaitTrue(() -> WebRtcStats.packetsReceived(d.page, SUB, "video") > 200, Duration.ofSeconds(30),
                    "D receives video packets: " + d.diagnostics());
            BrowserParticipant.sleep(3000);
            assertThat(WebRtcStats.packetsReceived(d.page, SUB, "video")).as("D receives video packets").isGreaterThan(200);
            assertThat(WebRtcStats.framesDecoded(d.page, SUB)).as("D decodes 0 frames: " + status(d)).isZero();
            assertThat(num(e2ee(d, "c.e2ee.session.counts.keysWithheld"))).as("the hook dropped D's keys").isPositive();
            assertThat(num(e2ee(d, "c.e2ee.cryptor.latest.stats.noKey"))).as("each frame dropped and counted").isGreaterThan(50);
            assertThat(String.valueOf(e2ee(d, "c.state.e2ee.peers['" + hostPid + "']"))).isEqualTo("waiting_for_keys");
            assertThat(d.page.textContent("[data-testid=tile-" + hostPid + "-camera]")).contains("Waiting for keys");
            assertThat(d.page.isVisible("[data-testid=tile-" + hostPid + "-camera] video")).as("no video shown, the avatar instead").isFalse();
            assertThat(code).as("the security code changed when D joined").isNotEqualTo(e2ee(host, "c.state.e2ee.securityCode"));
            b.awaitVideoFrom(hostPid, Duration.ofSeconds(10)); // the members still read each other after D's join rotation

            // 3. the host removes C: within 1 s every remaining sender uses a new key that C never gets
            // C's media path outlives its removal: the SFU ignores the release (test-only hook) and C's page keeps
            // its subscribe connection and its decrypting worker (a client that ignores its removal)
            String cPid = c.pid();
            String meetingId = String.valueOf(host.page.evaluate("() => window.parleyApp.client.meetingId"));
            keepAfterRemoval(meetingId, cPid);
            c.page.evaluate("""
                    () => { const c = window.parleyApp.client;
                      window.__keptE2ee = c.e2ee; window.__keptMedia = c.media;
                      c.e2ee.close = () => {}; c.media.close = () => {}; }""");
            List<BrowserParticipant> remaining = List.of(host, b, d);
            // D's join rotations first run to their end, so the rotation measured below is the removal's own
            for (BrowserParticipant p : remaining) {
                BrowserParticipant.awaitTrue(() -> Boolean.TRUE.equals(e2ee(p, "c.e2ee.session.settled()")), Duration.ofSeconds(10),
                        p.name + " has no rotation pending: " + status(p));
            }
            Map<String, Long> genBefore = new java.util.HashMap<>();
            for (BrowserParticipant p : remaining) genBefore.put(p.name, num(e2ee(p, "c.e2ee.session.generation")));
            long t0 = System.currentTimeMillis();
            host.page.evaluate("(pid) => { window.__removeSent = Date.now(); window.parleyApp.client.remove(pid).then(() => { window.__removeDone = Date.now(); }); }", cPid);
            for (BrowserParticipant p : remaining) {
                BrowserParticipant.awaitTrue(() -> num(e2ee(p, "c.e2ee.session.generation")) > genBefore.get(p.name)
                        && num(e2ee(p, "c.e2ee.session.lastRotation.inUseWallMs")) > 0, Duration.ofSeconds(10), p.name + " rotated: " + status(p));
                long started = num(e2ee(p, "c.e2ee.session.lastRotation.startedWallMs"));
                long inUse = num(e2ee(p, "c.e2ee.session.lastRotation.inUseWallMs"));
                long heard = num(e2ee(p, "(c.e2ee.session.history.find((h) => h.roster && h.roster.gone.includes('" + cPid + "')) || {}).at || 0"));
                System.out.printf("e2ee removal: %s heard of the departure %d ms, started its rotation %d ms and uses its new key %d ms after the remove command%n",
                        p.name, heard - t0, started - t0, inUse - t0);
                assertThat(started).as(p.name + "'s newest key was made after the remove command").isGreaterThanOrEqualTo(t0);
                assertThat(inUse - t0).as(p.name + " uses a new key within 1 s of the removal").isLessThan(1000);
                assertThat(String.valueOf(e2ee(p, "c.e2ee.session.lastRotation.reason"))).as(status(p)).isEqualTo("departure");
            }
            System.out.printf("e2ee removal: the remove command was sent %d ms and answered %d ms after the remove command%n",
                    num(host.page.evaluate("() => window.__removeSent")) - t0, num(host.page.evaluate("() => window.__removeDone || 0")) - t0);
            c.page.waitForSelector("[data-testid=end-screen][data-kind=removed]", new Page.WaitForSelectorOptions().setTimeout(10000));

            // C still receives the remaining senders' video, now under keys it never got: it decodes none of it.
            // The frames sent under the old keys in flight are let through first (the 2 s overlap is the senders'
            // switch delay plus the jitter buffer here, both well under 1.5 s).
            BrowserParticipant.sleep(1500);
            long decoded0 = WebRtcStats.framesDecoded(c.page, KEPT_SUB), packets0 = WebRtcStats.packetsReceived(c.page, KEPT_SUB, "video");
            long noKey0 = num(c.page.evaluate("() => window.__keptE2ee.cryptor.latest.stats.noKey"));
            BrowserParticipant.sleep(4000);
            long decoded1 = WebRtcStats.framesDecoded(c.page, KEPT_SUB), packets1 = WebRtcStats.packetsReceived(c.page, KEPT_SUB, "video");
            long noKey1 = num(c.page.evaluate("() => window.__keptE2ee.cryptor.latest.stats.noKey"));
            System.out.printf("e2ee removal: C after the rotation: +%d video packets, +%d frames dropped without a key, +%d decoded%n",
                    packets1 - packets0, noKey1 - noKey0, decoded1 - decoded0);
            assertThat(packets1 - packets0).as("C's media path is alive past its removal (SFU test hook)").isGreaterThan(100);
            assertThat(noKey1 - noKey0).as("C's worker drops the new frames: no key for them").isGreaterThan(20);
            assertThat(decoded1 - decoded0).as("C decodes nothing sent after the rotation").isZero();
            for (BrowserParticipant p : List.of(host, b)) {
                long newest = num(e2ee(p, "c.e2ee.session.generation"));
                long atC = num(c.page.evaluate("(pid) => window.__keptE2ee.session.received.get(pid) ?? 0", p.pid()));
                assertThat(atC).as("C never received " + p.name + "'s key after the removal").isLessThan(newest);
            }
            b.awaitVideoFrom(hostPid, Duration.ofSeconds(10));
            host.awaitVideoFrom(b.pid(), Duration.ofSeconds(10));
        }
    }

    /** Both encoded-transform APIs removed from the page before the app loads: a browser that has neither. */
    private static final String NO_TRANSFORMS = """
            delete window.RTCRtpScriptTransform;
            delete RTCRtpSender.prototype.createEncodedStreams;
            delete RTCRtpReceiver.prototype.createEncodedStreams;
            """;

    @Test
    void aBrowserWithoutEncodedTransformsIsRefusedAtJoinNeverJoinedInClear() {
        try (BrowserParticipant host = person("Hana Host", null);
             BrowserParticipant old = person("Olli Oldbrowser", NO_TRANSFORMS)) {
            String link = create(host, "e2ee");
            host.awaitConnected(Duration.ofSeconds(30));
            old.page.navigate(link);
            old.signIn();
            old.page.click("[data-testid=prejoin-join]");
            BrowserParticipant.awaitTrue(() -> Boolean.TRUE.equals(old.page.evaluate(
                            "() => (window.parleyApp?.client?.state.notices || []).some((n) => n.code === 'e2ee_unsupported')")),
                    Duration.ofSeconds(15), "the old browser is told e2ee_unsupported");
            assertThat(old.page.textContent("body")).contains("This browser cannot join an end-to-end encrypted meeting.");
            assertThat(old.page.evaluate("() => window.parleyApp.client.state.connectionReason")).isEqualTo("e2ee_unsupported");
            assertThat(old.page.evaluate("() => window.parleyApp.client.media ?? null")).as("no media path at all").isNull();
            assertThat(old.page.evaluate("() => window.parleyApp.client.state.self.participant_id ?? null")).as("never joined").isNull();
            BrowserParticipant.sleep(2000);
            assertThat(num(host.page.evaluate("() => Object.keys(window.parleyApp.client.state.participants).length")))
                    .as("the host sees nobody join").isZero();
        }
    }

    @Test
    void theSameHookInATransportMeetingChangesNothing() {
        try (BrowserParticipant host = person("Tia Transport", null);
             BrowserParticipant d = person("Dee Withheld", WITHHOLD)) {
            String link = create(host, "transport");
            d.join(link);
            host.awaitConnected(Duration.ofSeconds(30));
            d.awaitConnected(Duration.ofSeconds(30));
            d.awaitVideoFrom(host.pid(), Duration.ofSeconds(40));
            assertThat(WebRtcStats.framesDecoded(d.page, SUB)).isPositive();
            assertThat(e2ee(d, "c.e2ee ?? null")).as("no e2ee session in a transport meeting").isNull();
            assertThat(d.page.isVisible("[data-testid=e2ee-bar]")).isFalse();
        }
    }
}
