package dev.parley.sfu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import com.nimbusds.jose.jwk.ECKey;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.platform.ticket.TicketSigner;
import dev.parley.sfu.config.SfuConfig;
import dev.parley.testsupport.browser.Chromium;
import dev.parley.testsupport.web.StaticServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Top-N audio with real headless Chromium (docs/sfu.md "Top-N audio"): six participants in a meeting with
 * {@code audio_top_n = 2} — five speakers whose microphones are Web Audio tones of different loudness (Chromium
 * writes the RFC 6464 level of what it sends) and one listener that offers two recvonly audio slots. The listener
 * receives only the two loudest; when one of them stops and a quiet speaker starts talking, that slot carries the
 * new speaker within 300 ms of the first word, on the same SSRC, with no packet the browser counts as lost. The
 * test plays the controller like {@link SfuBrowserIT} (tickets, grants, an events sink).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TopNAudioBrowserIT {
    private static final String SECRET = "test-internal-secret-0123456789";
    private static final String POD = "sfu-topn-it";
    /** Tone amplitudes: about 3 dBov (loud), 15 dBov (speech) and 69 dBov (background, below the speech threshold). */
    private static final double LOUD = 1.0, SPEECH = 0.25, QUIET = 0.0005;
    private static final String PAGE = """
            <!doctype html><html><body><script>
            window.pcs = {}; window.gains = {};
            const cfg = {bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require'};
            const ctx = new AudioContext();
            // a "microphone": a tone whose loudness the test sets (Chromium puts its level in every RTP packet)
            async function speaker(name, freq, gain) {
              await ctx.resume();
              const osc = ctx.createOscillator(); osc.frequency.value = freq;
              const g = ctx.createGain(); g.gain.value = gain;
              const dst = ctx.createMediaStreamDestination();
              osc.connect(g).connect(dst); osc.start();
              window.gains[name] = g;
              const pc = new RTCPeerConnection(cfg);
              pc.addTransceiver(dst.stream.getAudioTracks()[0], {direction: 'sendonly'});
              await pc.setLocalDescription(await pc.createOffer());
              window.pcs[name] = pc;
              return pc.localDescription.sdp;
            }
            function setGain(name, v) { window.gains[name].gain.value = v; }
            async function listener(name, slots) {
              const pc = new RTCPeerConnection(cfg);
              for (let i = 0; i < slots; i++) pc.addTransceiver('audio', {direction: 'recvonly'});
              pc.ontrack = e => {   // played, so the jitter buffer runs as in a call
                const el = document.createElement('audio');
                el.autoplay = true; el.srcObject = new MediaStream([e.track]);
                document.body.appendChild(el);
              };
              await pc.setLocalDescription(await pc.createOffer());
              window.pcs[name] = pc;
              return pc.localDescription.sdp;
            }
            async function answer(name, sdp) {
              sdp = sdp.split('\\r\\n').filter(l => !(l.startsWith('a=candidate:') && l.split(' ')[2] === 'tcp')).join('\\r\\n');
              await window.pcs[name].setRemoteDescription({type: 'answer', sdp});
            }
            // what a speaker sends: the level of its track (media-source)
            async function sending(name) {
              const r = await window.pcs[name].getStats();
              let level = -1;
              r.forEach(s => { if (s.type === 'media-source' && s.kind === 'audio') level = s.audioLevel || 0; });
              return level;
            }
            // per receiving mid: its SSRC, packets, losses and the level of what it plays
            async function inbound(name) {
              const r = await window.pcs[name].getStats(), out = {};
              r.forEach(s => {
                if (s.type === 'inbound-rtp' && s.kind === 'audio') out[s.mid] = {ssrc: s.ssrc, packets: s.packetsReceived || 0,
                    lost: s.packetsLost || 0, level: s.audioLevel || 0, concealed: s.concealedSamples || 0};
              });
              return out;
            }
            </script></body></html>""";

    private final ObjectMapper json = new ObjectMapper();
    private final ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor();
    /** slot_assignments events as they arrive: receipt time (System.nanoTime) and body. */
    private final Queue<Object[]> assignments = new ConcurrentLinkedQueue<>();
    /** slot_delta events as they arrive. */
    private final Queue<JsonNode> deltas = new ConcurrentLinkedQueue<>();
    private com.sun.net.httpserver.HttpServer eventSink;
    private SfuServer sfu;
    private SfuInternalCalls internal;
    private StaticServer web;
    private Chromium chromium;

    @BeforeAll
    void start() throws Exception {
        ECKey key = TicketKeys.generate();
        internal = new SfuInternalCalls(() -> sfu.internalPort(), SECRET, new TicketSigner(key), POD);
        sfu = new SfuServer(new SfuConfig(POD, "local", "127.0.0.1", "127.0.0.1", 0, 0, 0, SECRET,
                key.toPublicJWK().toJSONString(), "", 5, true, 4_000_000, true));
        web = StaticServer.start().page("/topn.html", PAGE);
        chromium = Chromium.launch(Chromium.options().arg("--autoplay-policy=no-user-gesture-required"));
        renewer.scheduleAtFixedRate(internal::renewGrants, 0, 1000, TimeUnit.MILLISECONDS);
        eventSink = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 16);
        eventSink.createContext("/events", ex -> {
            try (ex) {
                long at = System.nanoTime();
                JsonNode e = json.readTree(ex.getRequestBody());
                if ("slot_assignments".equals(e.path("type").asText())) assignments.add(new Object[]{at, e});
                if ("slot_delta".equals(e.path("type").asText())) deltas.add(e);
                ex.sendResponseHeaders(204, -1);
            }
        });
        eventSink.start();
    }

    @AfterAll
    void stop() {
        renewer.shutdownNow();
        if (chromium != null) chromium.close();
        if (web != null) web.close();
        if (eventSink != null) eventSink.stop(0);
        if (sfu != null) sfu.close();
    }

    @Test
    void theListenerHearsOnlyTheTwoLoudestAndASlotMovesToANewSpeakerWithinAQuarterSecondWithoutAGap() throws Exception {
        String meeting = "m-" + UUID.randomUUID();
        String events = "http://127.0.0.1:" + eventSink.getAddress().getPort() + "/events";
        internal.audioTopN(2);
        BrowserContext speakersCtx = chromium.newContext(), listenerCtx = chromium.newContext();
        try {
            Page speakers = speakersCtx.newPage();
            speakers.navigate(web.url("/topn.html"));
            double[] gains = {LOUD, SPEECH, QUIET, QUIET, QUIET};
            for (int i = 0; i < gains.length; i++) {
                String name = "s" + (i + 1);
                String offer = (String) speakers.evaluate("([n, f, g]) => speaker(n, f, g)", List.of(name, 300 + 100 * i, gains[i]));
                JsonNode r = internal.createTransport(meeting, name, "publish", offer, events);
                speakers.evaluate("([n, sdp]) => answer(n, sdp)", List.of(name, r.get("sdp_answer").asText()));
            }
            // the tones play: s1 is loud, s3 is background (Chromium measures what each connection sends)
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(300)).untilAsserted(() -> {
                assertThat(((Number) speakers.evaluate("(n) => sending(n)", "s1")).doubleValue()).isGreaterThan(0.3);
                assertThat(((Number) speakers.evaluate("(n) => sending(n)", "s3")).doubleValue()).isLessThan(0.01);
            });
            Page listener = listenerCtx.newPage();
            listener.navigate(web.url("/topn.html"));
            String offer = (String) listener.evaluate("([n, k]) => listener(n, k)", List.of("l", 2));
            JsonNode sub = internal.createTransport(meeting, "l", "subscribe", offer, events);
            listener.evaluate("([n, sdp]) => answer(n, sdp)", List.of("l", sub.get("sdp_answer").asText()));
            var fromAnswer = json.createObjectNode().put("type", "slot_assignments").put("meeting_id", meeting).put("participant_id", "l");
            fromAnswer.putObject("data").set("slot_assignments", sub.path("slot_assignments"));
            assignments.add(new Object[]{System.nanoTime(), fromAnswer});     // the map the answer carried comes first

            // only the two loudest reach the listener: its two slots carry s1 and s2, and play loud audio
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300)).untilAsserted(() -> {
                assertThat(heard(meeting)).as("SFU's map %s", lastMap(meeting)).containsExactlyInAnyOrder("s1", "s2");
                JsonNode in = inbound(listener);
                assertThat(in.size()).as("%s", in).isEqualTo(2);
                for (JsonNode s : in) assertThat(s.path("level").asDouble()).as("%s", in).isGreaterThan(0.05);
                assertThat(in.path(midOf(meeting, "s1")).path("level").asDouble()).as("%s", in)
                        .isGreaterThan(in.path(midOf(meeting, "s2")).path("level").asDouble());
            });
            String s2Mid = midOf(meeting, "s2");
            JsonNode before = inbound(listener).path(s2Mid);

            // s2 stops talking; after a pause (its release) quiet s4 starts: s4 takes s2's slot on its first word
            speakers.evaluate("([n, g]) => setGain(n, g)", List.of("s2", QUIET));
            Thread.sleep(2_500);
            assertThat(heard(meeting)).as("a pause moves nobody").containsExactlyInAnyOrder("s1", "s2");
            int seen = assignments.size();
            long startedAt = System.nanoTime();
            speakers.evaluate("([n, g]) => setGain(n, g)", List.of("s4", LOUD));
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).until(() -> heard(meeting).contains("s4"));
            long movedAt = 0;
            int i = 0;
            for (Object[] a : assignments) {
                if (i++ < seen) continue;
                if (participants((JsonNode) a[1]).contains("s4")) { movedAt = (long) a[0]; break; }
            }
            long ms = (movedAt - startedAt) / 1_000_000;
            assertThat(heard(meeting)).containsExactlyInAnyOrder("s1", "s4");
            assertThat(midOf(meeting, "s4")).as("s4 took s2's slot").isEqualTo(s2Mid);
            assertThat(ms).as("first word → slot moved").isLessThanOrEqualTo(300);

            // the slot's stream goes on: same SSRC, packets keep coming, none lost, and it now plays s4's loud tone
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                    assertThat(inbound(listener).path(s2Mid).path("level").asDouble()).isGreaterThan(0.3));
            Thread.sleep(1_000);
            JsonNode after = inbound(listener).path(s2Mid);
            assertThat(after.path("ssrc").asLong()).isEqualTo(before.path("ssrc").asLong());
            assertThat(after.path("packets").asLong() - before.path("packets").asLong()).as("%s → %s", before, after).isGreaterThan(100);
            assertThat(after.path("lost").asLong()).as("packets lost %s → %s", before, after).isEqualTo(before.path("lost").asLong());
            System.out.printf("top-N audio: slot %s moved s2 → s4 %d ms after s4's first word; stats %s → %s%n", s2Mid, ms, before, after);
        } finally {
            speakersCtx.close();
            listenerCtx.close();
        }
    }

    /**
     * Slot map deltas (docs/internal-api.md "Top-N audio"): two listeners of the same speakers, {@code d} whose
     * subscribe transport asked for {@code slot_deltas} and {@code w} whose did not. When a slot moves to a new
     * speaker, {@code d} gets a {@code slot_delta} of that one slot chained on its answer's {@code slot_version}
     * ({@code base} → {@code version}) and never a whole map; {@code w} gets the whole map as before and never a
     * delta. The map {@code d} rebuilds from its answer and the deltas is the SFU's, and the whole map a client asks
     * for after a gap ({@code subscriptions} naming no track) is that map at the last delta's version.
     */
    @Test
    void aListenerThatReadsDeltasGetsTheMovedSlotOnAVersionChainAndOneThatDoesNotTheWholeMap() throws Exception {
        String meeting = "m-" + UUID.randomUUID();
        String events = "http://127.0.0.1:" + eventSink.getAddress().getPort() + "/events";
        internal.audioTopN(2);
        internal.readsSlotDeltas("d");
        BrowserContext speakersCtx = chromium.newContext(), listenerCtx = chromium.newContext();
        try {
            Page speakers = speakersCtx.newPage();
            speakers.navigate(web.url("/topn.html"));
            double[] gains = {LOUD, SPEECH, QUIET};
            for (int i = 0; i < gains.length; i++) {
                String name = "s" + (i + 1);
                String offer = (String) speakers.evaluate("([n, f, g]) => speaker(n, f, g)", List.of(name, 300 + 100 * i, gains[i]));
                JsonNode r = internal.createTransport(meeting, name, "publish", offer, events);
                speakers.evaluate("([n, sdp]) => answer(n, sdp)", List.of(name, r.get("sdp_answer").asText()));
            }
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(300)).untilAsserted(() ->
                    assertThat(((Number) speakers.evaluate("(n) => sending(n)", "s1")).doubleValue()).isGreaterThan(0.3));
            Page listeners = listenerCtx.newPage();
            listeners.navigate(web.url("/topn.html"));
            Map<String, JsonNode> answers = new HashMap<>();
            for (String l : List.of("d", "w")) {
                String offer = (String) listeners.evaluate("([n, k]) => listener(n, k)", List.of(l, 2));
                JsonNode sub = internal.createTransport(meeting, l, "subscribe", offer, events);
                listeners.evaluate("([n, sdp]) => answer(n, sdp)", List.of(l, sub.get("sdp_answer").asText()));
                answers.put(l, sub);
            }
            assertThat(answers.get("d").path("slot_version").isIntegralNumber()).as("%s", answers.get("d")).isTrue();

            // s1 and s2 are held; s2 stops, and after its release s3 starts: one slot of each listener moves to s3
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300)).untilAsserted(() -> {
                assertThat(owners(chain(meeting, answers.get("d"))).values()).containsExactlyInAnyOrder("s1", "s2");
                assertThat(owners(whole(meeting, "w", answers.get("w"))).values()).containsExactlyInAnyOrder("s1", "s2");
            });
            speakers.evaluate("([n, g]) => setGain(n, g)", List.of("s2", QUIET));
            Thread.sleep(2_500);
            speakers.evaluate("([n, g]) => setGain(n, g)", List.of("s3", LOUD));
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                assertThat(owners(chain(meeting, answers.get("d"))).values()).containsExactlyInAnyOrder("s1", "s3");
                assertThat(owners(whole(meeting, "w", answers.get("w"))).values()).containsExactlyInAnyOrder("s1", "s3");
            });

            List<JsonNode> dDeltas = of(deltas, meeting, "d");
            assertThat(dDeltas).as("d got slot_delta notices").isNotEmpty();
            assertThat(of(deltas, meeting, "w")).as("w did not ask for deltas").isEmpty();
            List<JsonNode> dWhole = new java.util.ArrayList<>();
            for (Object[] a : assignments) if (meeting.equals(((JsonNode) a[1]).path("meeting_id").asText())
                    && "d".equals(((JsonNode) a[1]).path("participant_id").asText())) dWhole.add((JsonNode) a[1]);
            assertThat(dWhole).as("d never gets the whole map as a notice").isEmpty();
            JsonNode move = dDeltas.getLast().path("data");
            assertThat(move.path("changes")).as("only the moved slot: %s", move).hasSize(1);
            assertThat(move.path("changes").get(0).path("participant_id").asText()).isEqualTo("s3");
            assertThat(move.path("version").asLong()).isEqualTo(move.path("base").asLong() + 1);
            JsonNode wMove = null;
            for (Object[] a : assignments) if (meeting.equals(((JsonNode) a[1]).path("meeting_id").asText())
                    && "w".equals(((JsonNode) a[1]).path("participant_id").asText())) wMove = ((JsonNode) a[1]).path("data");
            assertThat(wMove.path("slot_assignments")).as("w: the whole map").hasSize(2);
            int deltaBytes = json.writeValueAsBytes(move).length, wholeBytes = json.writeValueAsBytes(wMove).length;
            assertThat(deltaBytes).as("delta %s vs whole %s", move, wMove).isLessThan(wholeBytes);

            // after a gap the client asks for the whole map: it is the chained map, at the last delta's version
            JsonNode current = internal.currentSlotMap(meeting, "d");
            assertThat(current.path("slot_version").asLong()).isEqualTo(move.path("version").asLong());
            assertThat(owners(current.path("slot_assignments"))).isEqualTo(owners(chain(meeting, answers.get("d"))));
            System.out.printf("slot deltas: d's move notice %d B (%s), w's whole map %d B; chain %d deltas from version %d%n",
                    deltaBytes, move, wholeBytes, dDeltas.size(), answers.get("d").path("slot_version").asLong());
        } finally {
            speakersCtx.close();
            listenerCtx.close();
        }
    }

    /** The map a delta-reading client holds: its answer's map, then each delta in version order, checking the chain. */
    private JsonNode chain(String meeting, JsonNode answer) {
        Map<String, JsonNode> byMid = new java.util.TreeMap<>();
        for (JsonNode a : answer.path("slot_assignments")) byMid.put(a.path("mid").asText(), a);
        long version = answer.path("slot_version").asLong();
        List<JsonNode> ds = of(deltas, meeting, "d");
        ds.sort(java.util.Comparator.comparingLong(e -> e.path("data").path("base").asLong()));
        for (JsonNode e : ds) {
            JsonNode d = e.path("data");
            assertThat(d.path("base").asLong()).as("the chain from the answer has no gap: %s", ds).isEqualTo(version);
            for (JsonNode c : d.path("changes")) {
                if (c.path("participant_id").isNull()) byMid.remove(c.path("mid").asText());
                else byMid.put(c.path("mid").asText(), c);
            }
            version = d.path("version").asLong();
        }
        return json.valueToTree(byMid.values());
    }

    /** The last whole map a whole-map client holds: its answer's, or the latest slot_assignments notice. */
    private JsonNode whole(String meeting, String pid, JsonNode answer) {
        JsonNode last = answer.path("slot_assignments");
        for (Object[] a : assignments) {
            JsonNode e = (JsonNode) a[1];
            if (meeting.equals(e.path("meeting_id").asText()) && pid.equals(e.path("participant_id").asText())) last = e.path("data").path("slot_assignments");
        }
        return last;
    }

    private static List<JsonNode> of(Queue<JsonNode> events, String meeting, String pid) {
        List<JsonNode> out = new java.util.ArrayList<>();
        for (JsonNode e : events) if (meeting.equals(e.path("meeting_id").asText()) && pid.equals(e.path("participant_id").asText())) out.add(e);
        return out;
    }

    /** mid → participant of a map's audio slots. */
    private static Map<String, String> owners(JsonNode map) {
        Map<String, String> out = new java.util.TreeMap<>();
        for (JsonNode s : map) if ("audio".equals(s.path("kind").asText())) out.put(s.path("mid").asText(), s.path("participant_id").asText());
        return out;
    }

    // ------------------------------------------------------------------ helpers

    /** The listener's latest slot map from the SFU (its transport answer, then each slot_assignments event). */
    private JsonNode lastMap(String meeting) {
        JsonNode last = null;
        for (Object[] a : assignments) {
            JsonNode e = (JsonNode) a[1];
            if (meeting.equals(e.path("meeting_id").asText()) && "l".equals(e.path("participant_id").asText())) last = e;
        }
        return last == null ? json.createObjectNode() : last.path("data").path("slot_assignments");
    }

    private List<String> heard(String meeting) {
        return participants(lastMap(meeting));
    }

    private static List<String> participants(JsonNode eventOrMap) {
        JsonNode map = eventOrMap.has("data") ? eventOrMap.path("data").path("slot_assignments") : eventOrMap;
        List<String> out = new java.util.ArrayList<>();
        for (JsonNode s : map) if ("audio".equals(s.path("kind").asText())) out.add(s.path("participant_id").asText());
        return out;
    }

    private String midOf(String meeting, String pid) {
        for (JsonNode s : lastMap(meeting)) if (pid.equals(s.path("participant_id").asText())) return s.path("mid").asText();
        return null;
    }

    private JsonNode inbound(Page p) {
        Map<String, Object> m = new HashMap<>();
        @SuppressWarnings("unchecked") Map<String, Object> r = (Map<String, Object>) p.evaluate("(n) => inbound(n)", "l");
        m.putAll(r);
        return json.valueToTree(m);
    }
}
