package dev.parley.e2e.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue #17's first "Must show" line in real browsers: one meeting across three SFU processes in two MediaRegions
 * ({@code sfu-0} and {@code sfu-1} in {@code eu}, {@code sfu-2} in {@code us}; loopback stands in for the network),
 * one controller (region {@code eu}) and five people in headless Chromium using the web app.
 *
 * <p>Placement: each browser names its MediaRegion on its transport request ({@code media_region}, docs/api.md; the
 * SDK has no option for it, so an init script adds it to the request body). The two {@code us} people land on
 * {@code sfu-2}. The second {@code eu} SFU is used by load: a participant whose region differs from the meeting's
 * current SFU goes to the least stressed SFU of its region (SfuSelector.place). The host joins first ({@code sfu-0}),
 * a {@code us} person joins ({@code sfu-2}, now the meeting's SFU; relays make {@code sfu-0} forward her media to the
 * host), and once {@code sfu-0} forwards more than {@value #SPILL_PPS} packets/s (its registry stress above
 * {@code sfu-1}'s zero) the next {@code eu} person goes to {@code sfu-1}. (A tiny {@code PARLEY_SFU_SPILL_STRESS} was
 * tried first: it also moved every {@code eu} participant off {@code sfu-0} whose transport request was retried,
 * {@code transport_attempt_superseded}, which on this loaded machine was most of them.)
 * <ol>
 *   <li>Everyone decodes everyone's video and hears everyone (audio energy of each remote speaker grows in each page;
 *   the meeting's {@code audio_top_n} is 8 so nobody is left out by top-N audio).</li>
 *   <li>The host sends three simulcast layers (1280×720 camera). A near subscriber on {@code sfu-1} pins the host (a
 *   large tile), the far subscribers on {@code sfu-2} show it as a small grid tile: the relay {@code sfu-0 → sfu-2}
 *   carries only layer 0 while the relay {@code sfu-0 → sfu-1} carries a higher one (relay layer counters of both
 *   ends' {@code /state}).</li>
 *   <li>A host mute ({@code set_publish audio: false}) of a participant on {@code sfu-1}: its audio stops on all three
 *   SFUs (origin's relay taps, both receivers' relays) within {@value #STOP_WITHIN_MS} ms of the command, its video
 *   goes on, and the host reads {@code media_enforcement: applied}.</li>
 *   <li>A removal of a {@code us} participant: its audio and video stop on all three SFUs within
 *   {@value #STOP_WITHIN_MS} ms, and the host reads {@code applied}.</li>
 * </ol>
 * Times are printed ({@code cascade: ...}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "parley.e2e.cascade", matches = "true",
        disabledReason = "opt-in (-Dparley.e2e.cascade=true) until it passes reliably on the shared 2-core machine: five pages, "
                + "three SFUs and the controller on two cores answer commands in 1-6 s and miss the 1 s bounds (docs/testing.md, CascadeBrowserIT)")
class CascadeBrowserIT {
    /** Forwarded packets/s of sfu-0 before the next eu person joins (one media worker: stress = pps / 100 000). */
    static final long SPILL_PPS = 30;
    /** The bound for a mute and a removal to reach every SFU carrying the participant. */
    static final long STOP_WITHIN_MS = 1000;

    @RegisterExtension
    static final BrowserPlatform<LocalPlatform> env = BrowserPlatform.of(() -> LocalPlatform.missing(3),
            // leases of 10 s: at load 18 on the shared 2-core machine, keep-alives stalled past 3 s, the SFUs' registry
            // entries expired and their participants were moved (a placement test needs the placement to hold)
            () -> LocalPlatform.start(List.of("eu", "eu", "us"), Map.of("PARLEY_SFU_WORKERS", "1", "PARLEY_LEASE_TTL_SECONDS", "10"),
                    Map.of("PARLEY_REGION", "eu", "PARLEY_LEASE_TTL_SECONDS", "10")));
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Adds {@code media_region} to the SDK's transport requests (what a client in that region would send). */
    private static String regionScript(String region) {
        return """
            (() => {
              const f = window.fetch.bind(window);
              window.fetch = (url, init) => {
                if (init && init.method === 'POST' && typeof init.body === 'string' && /\\/participants\\/[^/]+\\/transports$/.test(String(url))) {
                  const b = JSON.parse(init.body); b.media_region = '%s'; init = { ...init, body: JSON.stringify(b) };
                }
                return f(url, init);
              };
            })();
            """.formatted(region);
    }

    /** The camera at w×h and 15 fps whatever the app asks for (CPU: five pages encode and decode on two cores). */
    private static String camera(int w, int h) {
        return """
            (() => {
              const md = navigator.mediaDevices;
              const original = md.getUserMedia.bind(md);
              md.getUserMedia = (c) => original(c && c.video
                ? { ...c, video: { ...(typeof c.video === 'object' ? c.video : {}), width: { exact: %d }, height: { exact: %d }, frameRate: { max: 15 } } }
                : c);
            })();
            """.formatted(w, h);
    }

    /** The host at 1280×720: the SDK sends three simulcast layers (320×180, 640×360, 1280×720). */
    private static final String HD_CAMERA = camera(1280, 720);
    /** Everyone else at 320×180: one encoding. */
    private static final String SMALL_CAMERA = camera(320, 180);

    /** Per remote participant: audio energy and samples received over 3 s (the subscribe connection's inbound-rtp). */
    private static final String HEARING = """
        async () => {
          const c = window.parleyApp.client;
          const take = async () => {
            const m = {};
            if (!c.media || !c.media.sub) return m;
            (await c.media.sub.getStats()).forEach(s => {
              if (s.type !== 'inbound-rtp' || s.kind !== 'audio') return;
              const pid = c.media.slots.get(String(s.mid))?.participantId;
              if (pid) m[pid] = { e: s.totalAudioEnergy ?? 0, n: s.totalSamplesReceived ?? 0, p: s.packetsReceived ?? 0 };
            });
            return m;
          };
          const a = await take();
          await new Promise(r => setTimeout(r, 3000));
          const b = await take();
          const out = {};
          for (const [pid, v] of Object.entries(b)) {
            const p = a[pid] ?? { e: 0, n: 0, p: 0 };
            out[pid] = { energy: v.e - p.e, samples: v.n - p.n, packets: v.p - p.p };
          }
          return JSON.stringify(out);
        }
        """;

    private final List<BrowserParticipant> people = new ArrayList<>();
    private BrowserParticipant host, uma, emil, ugo, eva;
    private String meetingId;
    /** The first test's meeting is up as asserted (the later tests build on it). */
    private boolean ready;
    /** participant id → the SFU pod it was placed on. */
    private final Map<String, String> placed = new LinkedHashMap<>();

    @Test
    @Order(1)
    void fivePeopleOnThreeSfusInTwoRegionsSeeAndHearEachOther() throws Exception {
        long t0 = System.nanoTime();
        host = person("Hana Host", "eu", HD_CAMERA);
        host.signIn();
        host.page.waitForSelector("[data-testid=create-title]");
        meetingId = String.valueOf(host.page.evaluate("""
            async () => {
              const s = JSON.parse(sessionStorage.getItem('parley.session'));
              const r = await fetch('/v1/meetings', { method: 'POST', headers: { 'Content-Type': 'application/json',
                Authorization: 'Bearer ' + s.token, 'Idempotency-Key': 'cascade-' + Date.now() },
                body: JSON.stringify({ title: 'Cascade', waiting_room_enabled: false, encryption_mode: 'transport', audio_top_n: 8 }) });
              if (r.status !== 201) throw new Error('create meeting: ' + r.status + ' ' + await r.text());
              return (await r.json()).meeting_id;
            }
            """));
        String link = env.platform().baseUrl() + "/#/m/" + meetingId;
        host.page.evaluate("(id) => { location.hash = '#/m/' + id; }", meetingId);
        host.page.click("[data-testid=prejoin-join]");
        host.page.waitForSelector("[data-testid=meeting]");
        host.awaitConnected(Duration.ofSeconds(30));

        uma = person("Uma US", "us", null);
        uma.join(link);
        uma.awaitConnected(Duration.ofSeconds(30));
        uma.awaitVideoFrom(host.pid(), Duration.ofSeconds(60)); // relays up: sfu-0 now forwards Uma's media to the host
        // capacity spill: wait until sfu-0 forwards above the spill stress and its registry entry (refreshed every 2 s) says so
        BrowserParticipant.awaitTrue(() -> state("sfu-0").path("load").path("packets_per_second").asLong() > 2 * SPILL_PPS,
                Duration.ofSeconds(30), "sfu-0 forwarding above " + 2 * SPILL_PPS + " packets/s");
        BrowserParticipant.sleep(3000);

        emil = person("Emil EU", "eu", null);
        emil.join(link);
        ugo = person("Ugo US", "us", null);
        ugo.join(link);
        eva = person("Eva EU", "eu", null);
        eva.join(link);
        for (BrowserParticipant p : people) p.awaitConnected(Duration.ofSeconds(30));
        for (BrowserParticipant p : people) placed.put(p.pid(), sfuOf(p));
        System.out.println("cascade: placement " + names(placed));
        assertThat(placed.get(host.pid())).as("the host (eu, first)").isEqualTo("sfu-0");
        assertThat(placed.get(emil.pid())).as("Emil (eu) goes to the region's least loaded SFU").isEqualTo("sfu-1");
        assertThat(placed.get(uma.pid())).as("Uma (us)").isEqualTo("sfu-2");
        assertThat(placed.get(ugo.pid())).as("Ugo (us)").isEqualTo("sfu-2");
        assertThat(placed.get(eva.pid())).as("Eva (eu)").isIn("sfu-0", "sfu-1");

        for (BrowserParticipant p : people) {
            for (BrowserParticipant q : people) {
                if (p == q) continue;
                try {
                    p.awaitVideoFrom(q.pid(), Duration.ofSeconds(60));
                } catch (AssertionError e) {
                    String at = placed.get(p.pid());
                    JsonNode me = participant(at, p.pid());
                    throw new AssertionError(e.getMessage() + " (" + q.name + ")\n" + p.name + ": " + p.diagnostics() + "\n" + at + " slots: "
                            + me.path("slots") + "\nlayers: " + me.path("video_layers") + "\ncc: " + me.path("congestion_control")
                            + "\n" + at + " relays: " + state(at).path("relays"), e);
                }
            }
        }
        long videoMs = (System.nanoTime() - t0) / 1_000_000;
        for (BrowserParticipant p : people) {
            List<String> others = people.stream().filter(q -> q != p).map(BrowserParticipant::pid).toList();
            String[] last = {""};
            await(() -> {
                JsonNode h = json(String.valueOf(p.page.evaluate(HEARING)));
                last[0] = h.toString();
                return others.stream().allMatch(o -> h.path(o).path("energy").asDouble() > 0 && h.path(o).path("samples").asLong() > 0);
            }, Duration.ofSeconds(40), () -> p.name + " hears all four others: " + names(last[0]));
            System.out.println("cascade: " + p.name + " hears " + names(json(last[0])));
        }
        ready = true;
        System.out.println("cascade: everyone decodes everyone's video " + videoMs + " ms after the host started; relays at sfu-0: "
                + relaysSummary("sfu-0") + "; sfu-1: " + relaysSummary("sfu-1") + "; sfu-2: " + relaysSummary("sfu-2"));
    }

    @Test
    @Order(2)
    void aFarSmallTileGetsOnlyTheLowLayerAcrossItsRelay() {
        requireMeeting();
        String hostVideo = trackOf("sfu-0", host.pid(), "camera");
        emil.page.click("[data-testid=tile-" + host.pid() + "-camera] button.pin");   // a near large tile: the top layer
        Map<String, long[]> deltas = new HashMap<>();
        await(() -> {
            long[] far0 = outLayers("sfu-0", "sfu-2", hostVideo), near0 = outLayers("sfu-0", "sfu-1", hostVideo);
            BrowserParticipant.sleep(3000);
            long[] far1 = outLayers("sfu-0", "sfu-2", hostVideo), near1 = outLayers("sfu-0", "sfu-1", hostVideo);
            deltas.put("far", minus(far1, far0));
            deltas.put("near", minus(near1, near0));
            long[] far = deltas.get("far"), near = deltas.get("near");
            return far.length == 3 && near.length == 3 && far[0] > 0 && far[1] == 0 && far[2] == 0 && near[1] + near[2] > 0;
        }, Duration.ofSeconds(40), () -> "host video: only layer 0 crosses sfu-0 → sfu-2 while sfu-0 → sfu-1 carries a higher layer; "
                + "packets per layer in 3 s: far " + java.util.Arrays.toString(deltas.get("far")) + ", near " + java.util.Arrays.toString(deltas.get("near"))
                + "\nsfu-0 relays: " + state("sfu-0").path("relays"));
        long[] in = minusOver("sfu-2", hostVideo);
        System.out.println("cascade: host video packets per layer in 3 s, sfu-0 → sfu-2 (small far tiles) "
                + java.util.Arrays.toString(deltas.get("far")) + ", sfu-0 → sfu-1 (pinned near) " + java.util.Arrays.toString(deltas.get("near"))
                + ", received at sfu-2 " + java.util.Arrays.toString(in));
        assertThat(in.length).isEqualTo(3);
        assertThat(in[1] + in[2]).as("the far SFU receives no higher layer").isZero();
        assertThat(in[0]).as("the far SFU receives layer 0").isPositive();
        uma.awaitVideoFrom(host.pid(), Duration.ofSeconds(10));
    }

    @Test
    @Order(3)
    void aHostMuteStopsTheAudioOnEverySfuWithinOneSecondAndIsApplied() {
        requireMeeting();
        String audio = trackOf(placed.get(emil.pid()), emil.pid(), "microphone");
        String video = trackOf(placed.get(emil.pid()), emil.pid(), "camera");
        Map<String, Long> stopped = stopTimes(List.of(audio), List.of(video),
                () -> command(Map.of("type", "set_publish", "participant_id", emil.pid(), "audio", false)), "mute of Emil");
        stopped.values().forEach(ms -> assertThat(ms).as("audio stopped at every SFU within %d ms: %s", STOP_WITHIN_MS, stopped)
                .isBetween(0L, STOP_WITHIN_MS));
    }

    @Test
    @Order(4)
    void aRemovalStopsAllMediaOnEverySfuWithinOneSecondAndIsApplied() {
        requireMeeting();
        String pod = placed.get(ugo.pid());
        List<String> tracks = List.of(trackOf(pod, ugo.pid(), "microphone"), trackOf(pod, ugo.pid(), "camera"));
        Map<String, Long> stopped = stopTimes(tracks, List.of(),
                () -> command(Map.of("type", "remove_participant", "participant_id", ugo.pid())), "removal of Ugo");
        stopped.values().forEach(ms -> assertThat(ms).as("media stopped at every SFU within %d ms: %s", STOP_WITHIN_MS, stopped)
                .isBetween(0L, STOP_WITHIN_MS));
    }

    // --- the moderation checks -----------------------------------------------------------------------------------

    /**
     * Runs {@code command} (the host's API call; returns the command id) and watches, every ~50 ms for 4 s, the relay
     * packet counters of {@code stopping} (every relay end on every SFU: the origin's taps, each receiver's inbound) and
     * of {@code going} (must keep growing). Returns per counter the time after the command of its last growth (0 when it
     * never grew). Also waits for the host to read {@code applied}.
     */
    private Map<String, Long> stopTimes(List<String> stopping, List<String> going, java.util.function.Supplier<String> command, String what) {
        Map<String, Long> before = counters(stopping);
        BrowserParticipant.sleep(1000);
        Map<String, Long> after = counters(stopping);
        for (String sfu : List.of("sfu-0", "sfu-1", "sfu-2")) {
            assertThat(after.keySet().stream().anyMatch(k -> k.startsWith(sfu + " ")))
                    .as("%s: %s carries the tracks (relay counters %s)", what, sfu, after).isTrue();
        }
        after.forEach((k, v) -> assertThat(v).as("%s: %s grows before the command", what, k).isGreaterThan(before.getOrDefault(k, 0L)));
        Map<String, Long> goingBefore = counters(going);
        long t0 = System.nanoTime();
        command.get();                               // sent; its answer is awaited in the page while we watch
        Map<String, Long> last = new HashMap<>(after), lastGrowth = new LinkedHashMap<>();
        for (String k : after.keySet()) lastGrowth.put(k, 0L);
        long appliedMs = -1, answeredMs = -1;
        String commandId = null;
        while (System.nanoTime() - t0 < 5_000_000_000L) {
            long at = (System.nanoTime() - t0) / 1_000_000;
            Map<String, Long> now = counters(stopping);
            for (Map.Entry<String, Long> e : now.entrySet()) {
                Long prev = last.get(e.getKey());
                if (prev == null || e.getValue() > prev) lastGrowth.put(e.getKey(), at);
                last.put(e.getKey(), e.getValue());
            }
            if (commandId == null && (commandId = answeredCommand()) != null) answeredMs = (System.nanoTime() - t0) / 1_000_000;
            if (commandId != null && appliedMs < 0 && "applied".equals(commandState(commandId))) appliedMs = (System.nanoTime() - t0) / 1_000_000;
            BrowserParticipant.sleep(50);
        }
        String[] id = {commandId};
        BrowserParticipant.awaitTrue(() -> (id[0] = id[0] != null ? id[0] : answeredCommand()) != null, Duration.ofSeconds(20), what + ": the command answered");
        long sentMs = answeredMs;
        String[] state = {""};
        BrowserParticipant.awaitTrue(() -> "applied".equals(state[0] = commandState(id[0])), Duration.ofSeconds(20),
                what + ": the host reads media_enforcement applied");
        if (appliedMs < 0) appliedMs = (System.nanoTime() - t0) / 1_000_000;
        Map<String, Long> goingAfter = counters(going);
        goingAfter.forEach((k, v) -> assertThat(v).as("%s: %s keeps going", what, k).isGreaterThan(goingBefore.getOrDefault(k, 0L)));
        System.out.println("cascade: " + what + ": command answered in " + sentMs + " ms, applied seen at " + appliedMs
                + " ms; last packet per SFU relay end (ms after the command): " + lastGrowth);
        return lastGrowth;
    }

    /** Sends the host's command through the API (the app's own client) without waiting for its answer. */
    private String command(Map<String, Object> cmd) {
        host.page.evaluate("({ id, cmd }) => { window.cascadeCommand = null; window.parleyApp.client.api.command(id, cmd)"
                + ".then(r => { window.cascadeCommand = r.command_id; }, e => { window.cascadeCommand = 'failed: ' + e; }); return true; }",
                Map.of("id", meetingId, "cmd", cmd));
        return null;
    }

    /** The command id once the API answered, else null. */
    private String answeredCommand() {
        Object r = host.page.evaluate("() => window.cascadeCommand");
        if (r != null && String.valueOf(r).startsWith("failed")) throw new AssertionError("the command failed: " + r);
        return r == null ? null : String.valueOf(r);
    }

    private String commandState(String commandId) {
        return String.valueOf(host.page.evaluate("async ({ id, c }) => (await window.parleyApp.client.api.getCommand(id, c)).media_enforcement",
                Map.of("id", meetingId, "c", commandId)));
    }

    /**
     * Relay packet counters of {@code tracks} at every SFU: "{sfu} out→{to} {track} L{layer}" for origin taps and
     * "{sfu} in←{from} {track} L{layer}" for receiving ends.
     */
    private Map<String, Long> counters(List<String> tracks) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String sfu : List.of("sfu-0", "sfu-1", "sfu-2")) {
            for (JsonNode r : state(sfu).path("relays")) {
                if (!meetingId.equals(r.path("meeting_id").asText())) continue;
                boolean o = "out".equals(r.path("direction").asText());
                String peer = o ? "out→" + r.path("to_sfu").asText() : "in←" + r.path("from_sfu").asText();
                for (JsonNode t : r.path("tracks")) {
                    if (!tracks.contains(t.path("track_id").asText())) continue;
                    for (int i = 0; i < t.path("layers").size(); i++) {
                        out.merge(sfu + " " + peer + " " + t.path("track_id").asText() + " L" + t.path("layers").get(i).asInt(),
                                t.path("layer_packets").get(i).asLong(), Long::sum);
                    }
                }
            }
        }
        return out;
    }

    // --- SFU state ------------------------------------------------------------------------------------------------

    private static JsonNode state(String sfu) {
        try {
            int port = env.platform().sfuInternalPorts.get(sfu);
            String body = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/internal/v1/state"))
                    .header("Authorization", "Bearer " + env.platform().internalSecret).timeout(Duration.ofSeconds(5)).GET().build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            return JSON.readTree(body);
        } catch (Exception e) {
            throw new AssertionError(sfu + " state unavailable", e);
        }
    }

    /** The SFU the participant's current transport generation is on (its connect ticket), checked against that SFU's state. */
    private String sfuOf(BrowserParticipant p) {
        String pod = String.valueOf(p.page.evaluate("() => window.parleyApp.client.sfuPod"));
        String pid = p.pid();
        BrowserParticipant.awaitTrue(() -> !participant(pod, pid).path("publish_transport").isMissingNode()
                && !participant(pod, pid).path("publish_transport").isNull(), Duration.ofSeconds(20), pid + " has a transport on " + pod);
        return pod;
    }

    /** The SFU holding a publish transport of {@code pid}. */
    private String sfuWithTransportOf(String pid) {
        String[] found = {null};
        BrowserParticipant.awaitTrue(() -> {
            for (String sfu : List.of("sfu-0", "sfu-1", "sfu-2")) {
                JsonNode p = participant(sfu, pid);
                if (!p.isMissingNode() && !p.path("publish_transport").isNull() && !p.path("publish_transport").isMissingNode()) {
                    found[0] = sfu;
                    return true;
                }
            }
            return false;
        }, Duration.ofSeconds(20), pid + " has a transport on some SFU");
        return found[0];
    }

    private JsonNode participant(String sfu, String pid) {
        for (JsonNode m : state(sfu).path("meetings")) {
            if (!meetingId.equals(m.path("meeting_id").asText())) continue;
            for (JsonNode p : m.path("participants")) if (pid.equals(p.path("participant_id").asText())) return p;
        }
        return JSON.missingNode();
    }

    /** The track id of {@code pid}'s {@code source} at its own SFU. */
    private String trackOf(String sfu, String pid, String source) {
        String[] id = {null};
        BrowserParticipant.awaitTrue(() -> {
            participant(sfu, pid).path("track_sources").fields().forEachRemaining(e -> {
                if (source.equals(e.getValue().asText())) id[0] = e.getKey();
            });
            return id[0] != null;
        }, Duration.ofSeconds(10), pid + "'s " + source + " track at " + sfu + ": " + participant(sfu, pid));
        return id[0];
    }

    /** Packets per layer the origin {@code sfu} sent of {@code track} on its relay to {@code to} (index = layer). */
    private long[] outLayers(String sfu, String to, String track) {
        return relayLayers(sfu, track, r -> "out".equals(r.path("direction").asText()) && to.equals(r.path("to_sfu").asText()));
    }

    /** Packets per layer of {@code track} on the first active relay of {@code sfu} that {@code which} accepts. */
    private long[] relayLayers(String sfu, String track, java.util.function.Predicate<JsonNode> which) {
        for (JsonNode r : state(sfu).path("relays")) {
            if (!which.test(r) || !"active".equals(r.path("state").asText())) continue;
            for (JsonNode t : r.path("tracks")) {
                if (!track.equals(t.path("track_id").asText())) continue;
                long[] out = new long[3];
                for (int i = 0; i < t.path("layers").size(); i++) {
                    int l = t.path("layers").get(i).asInt();
                    if (l < 3) out[l] = t.path("layer_packets").get(i).asLong();
                }
                return out;
            }
        }
        return new long[0];
    }

    /** Packets per layer the receiving {@code sfu} got of {@code track} over 3 s (index = layer). */
    private long[] minusOver(String sfu, String track) {
        long[] a = inLayers(sfu, track);
        BrowserParticipant.sleep(3000);
        return minus(inLayers(sfu, track), a);
    }

    private long[] inLayers(String sfu, String track) {
        return relayLayers(sfu, track, r -> "in".equals(r.path("direction").asText()));
    }

    private static long[] minus(long[] b, long[] a) {
        if (a.length != b.length) return new long[0];
        long[] d = new long[b.length];
        for (int i = 0; i < b.length; i++) d[i] = b[i] - a[i];
        return d;
    }

    private String relaysSummary(String sfu) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode r : state(sfu).path("relays")) {
            if (!"active".equals(r.path("state").asText())) continue;
            sb.append(r.path("direction").asText()).append(' ').append(r.path("to_sfu").asText(r.path("from_sfu").asText()))
                    .append(" tracks ").append(r.path("tracks").size()).append(", ");
        }
        return sb.toString();
    }

    // --- people ---------------------------------------------------------------------------------------------------

    private BrowserParticipant person(String name, String region, String extraScript) {
        BrowserParticipant p = new BrowserParticipant(env.browser(), env.platform().baseUrl(), name,
                regionScript(region) + (extraScript == null ? SMALL_CAMERA : extraScript));
        people.add(p);
        return p;
    }

    /** Replaces participant ids by names in a map's keys, for the printed figures. */
    private String names(Object o) {
        String s = String.valueOf(o);
        for (BrowserParticipant p : people) {
            try {
                String pid = p.pid();
                if (pid != null && !"null".equals(pid)) s = s.replace(pid, p.name);
            } catch (RuntimeException ignored) {
                // a closed page
            }
        }
        return s;
    }

    private static JsonNode json(String s) {
        try {
            return JSON.readTree(s);
        } catch (Exception e) {
            return JSON.missingNode();
        }
    }

    private static void await(java.util.function.BooleanSupplier cond, Duration timeout, java.util.function.Supplier<String> what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (cond.getAsBoolean()) return;
            BrowserParticipant.sleep(200);
        }
        throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for: " + what.get());
    }

    private void requireMeeting() {
        org.junit.jupiter.api.Assumptions.assumeTrue(ready, "the meeting of the first test is up");
    }

    @org.junit.jupiter.api.AfterAll
    void closePeople() {
        for (BrowserParticipant p : people) {
            try {
                p.close();
            } catch (RuntimeException ignored) {
                // already gone
            }
        }
    }
}
