package dev.parley.sfu;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.platform.ticket.TicketSigner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;

/**
 * The browser tests' calls to a real SFU's internal API (bearer secret, JSON), asserting the expected status,
 * and the part of the controller's job those tests play: connect tickets, grants (renewed every second by
 * {@link #renewGrants}, like the owner controller does), subscriptions, and reading {@code /state}.
 */
final class SfuInternalCalls {
    /** The controller epoch every call carries. */
    static final long EPOCH = 7;
    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();
    private final IntSupplier port;
    private final String secret;
    private final TicketSigner signer;
    private final String pod;
    private long version = 1;
    /** meeting → participant → may publish audio and video; removed entries are no longer renewed. */
    private final Map<String, Map<String, Boolean>> renewed = new ConcurrentHashMap<>();
    /** Participant ids whose grants also allow a screen share. */
    private final Set<String> screenAllowed = ConcurrentHashMap.newKeySet();
    /** The meeting setting {@code audio_top_n} sent with each transport (null: not sent). */
    private volatile Integer audioTopN;
    /** Participants whose subscribe transport requests say {@code slot_deltas: true}. */
    private final Set<String> slotDeltas = ConcurrentHashMap.newKeySet();

    /**
     * @param port   the SFU's internal port, read per call (the server may be restarted between tests)
     * @param signer signs connect tickets for {@code pod}
     */
    SfuInternalCalls(IntSupplier port, String secret, TicketSigner signer, String pod) {
        this.port = port;
        this.secret = secret;
        this.signer = signer;
        this.pod = pod;
    }

    JsonNode call(String method, String path, JsonNode body, int expect) {
        try {
            HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port.getAsInt() + path))
                    .header("Authorization", "Bearer " + secret).header("Content-Type", "application/json")
                    .timeout(Duration.ofSeconds(30))
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body))).build();
            HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isEqualTo(expect);
            return r.body().isEmpty() ? json.nullNode() : json.readTree(r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * {@code POST /transports} (generation 1) with a fresh connect ticket and a grant allowing everything; the
     * participant's grant is renewed from now on. {@code eventsUrl} may be null.
     */
    JsonNode createTransport(String meeting, String pid, String kind, String offer, String eventsUrl) {
        return createTransport(meeting, pid, kind, offer, eventsUrl, null);
    }

    /** As above, declaring what the publish offer's m-sections carry ({@code mid → microphone|camera|screen}). */
    JsonNode createTransport(String meeting, String pid, String kind, String offer, String eventsUrl, Map<String, String> sources) {
        renewed.computeIfAbsent(meeting, k -> new ConcurrentHashMap<>()).putIfAbsent(pid, true);
        ObjectNode body = json.createObjectNode();
        body.put("meeting_id", meeting).put("participant_id", pid).put("transport_generation", 1)
                .put("controller_epoch", EPOCH).put("kind", kind)
                .put("connect_ticket", signer.issue(meeting, pid, 1, pod, "dk", Duration.ofSeconds(20)).token())
                .put("sdp_offer", offer);
        if (eventsUrl != null) body.put("events_url", eventsUrl);
        if (audioTopN != null) body.put("audio_top_n", audioTopN);
        if (slotDeltas.contains(pid) && kind.equals("subscribe")) body.put("slot_deltas", true);
        if (sources != null) {
            var arr = body.putArray("sources");
            sources.forEach((mid, source) -> arr.addObject().put("mid", mid).put("source", source));
        }
        body.set("grant", grant(pid, true));
        return call("POST", "/internal/v1/transports", body, 200);
    }

    /** The participant's subscribe transport requests ask for {@code slot_delta} notices from now on. */
    void readsSlotDeltas(String pid) {
        slotDeltas.add(pid);
    }

    /** {@code PUT .../subscriptions} naming no track: changes nothing, answers the whole slot map and its version. */
    JsonNode currentSlotMap(String meeting, String pid) {
        ObjectNode body = json.createObjectNode().put("controller_epoch", EPOCH);
        body.putArray("tracks");
        return call("PUT", "/internal/v1/meetings/" + meeting + "/participants/" + pid + "/subscriptions", body, 200);
    }

    /** Sends {@code audio_top_n} (the meeting's top-N audio) with every later transport request. */
    void audioTopN(int n) {
        audioTopN = n;
    }

    /** A grant of the next version: subscribe, and publish audio + video when {@code media}; 3 s to live. */
    synchronized ObjectNode grant(String pid, boolean media) {
        ObjectNode g = json.createObjectNode();
        g.put("participant_id", pid).put("version", version++).put("controller_epoch", EPOCH).put("subscribe", true).put("ttl_ms", 3000);
        g.putObject("publish").put("audio", media).put("video", media).put("screen", media && screenAllowed.contains(pid));
        return g;
    }

    /** Changes what a participant may publish from the next renewal on, and sends it now. */
    void setMayPublish(String meeting, String pid, boolean media) {
        renewed.computeIfAbsent(meeting, k -> new ConcurrentHashMap<>()).put(pid, media);
        putGrants(meeting);
    }

    /** Whether the participant's grant allows a screen share (from its next grant on; sent now if it is renewed). */
    void setMayShareScreen(String meeting, String pid, boolean allowed) {
        if (allowed) screenAllowed.add(pid);
        else screenAllowed.remove(pid);
        if (renewed.containsKey(meeting)) putGrants(meeting);
    }

    /** Stops renewing the meeting's grants: they run out after their ttl. */
    void stopRenewing(String meeting) {
        renewed.remove(meeting);
    }

    /** One renewal round for every meeting (call every second); a failed call waits for the next round. */
    void renewGrants() {
        for (String meeting : Set.copyOf(renewed.keySet())) {
            try {
                putGrants(meeting);
            } catch (RuntimeException e) {
                // next round
            }
        }
    }

    private void putGrants(String meeting) {
        Map<String, Boolean> ps = renewed.get(meeting);
        if (ps == null) return;
        ObjectNode body = json.createObjectNode().put("meeting_id", meeting).put("controller_epoch", EPOCH);
        var arr = body.putArray("grants");
        ps.forEach((pid, media) -> arr.add(grant(pid, media)));
        call("PUT", "/internal/v1/grants", body, 200);
    }

    /** {@code PUT .../subscriptions} for one track: the tile size and frame rate the subscriber shows it at. */
    void subscribe(String meeting, String pid, String track, int maxWidth, int maxHeight, int maxFps) {
        ObjectNode body = json.createObjectNode().put("controller_epoch", EPOCH);
        body.putArray("tracks").addObject().put("track_id", track).put("max_width", maxWidth).put("max_height", maxHeight)
                .put("max_fps", maxFps);
        call("PUT", "/internal/v1/meetings/" + meeting + "/participants/" + pid + "/subscriptions", body, 200);
    }

    /** The participant's entry in {@code GET /state} (missing node when absent). */
    JsonNode participant(String meeting, String pid) {
        for (JsonNode m : call("GET", "/internal/v1/state", null, 200).path("meetings")) {
            if (!meeting.equals(m.path("meeting_id").asText())) continue;
            for (JsonNode p : m.path("participants")) if (pid.equals(p.path("participant_id").asText())) return p;
        }
        return json.missingNode();
    }
}
