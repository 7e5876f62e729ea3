package dev.parley.sfu.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.jwk.ECKey;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.platform.ticket.TicketSigner;
import dev.parley.sfu.SfuServer;
import dev.parley.sfu.config.SfuConfig;
import dev.parley.sfu.signaling.AnswerBuilderTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Paged video at the SFU (docs/internal-api.md "Subscriptions"): a subscriber with one video slot and two camera
 * publishers. A {@code subscribe} entry of 0 × 0 takes a video off the slot; a watched video without a slot takes
 * the free one; an unwatched video is not put back by anything but a sized entry. Real SFU in the JVM, real
 * offers and answers, the internal HTTP API.
 */
class WatchedVideoApiTest {
    private static final String SECRET = "watched-test-secret-0123456789";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static SfuServer sfu;
    private static TicketSigner signer;

    @BeforeAll
    static void start() throws Exception {
        ECKey key = TicketKeys.generate();
        signer = new TicketSigner(key);
        sfu = new SfuServer(new SfuConfig("sfu-watched", "local", "127.0.0.1", "127.0.0.1", 0, 0, 0, SECRET,
                key.toPublicJWK().toJSONString(), "", 5, false, 1_000_000, true));
    }

    @AfterAll
    static void stop() { sfu.close(); }

    private static HttpResponse<String> call(String method, String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sfu.internalPort() + path))
                .method(method, HttpRequest.BodyPublishers.ofString(body)).header("Authorization", "Bearer " + SECRET).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static void transport(String pid, String kind) throws Exception {
        String ticket = signer.issue("mw", pid, 1, "sfu-watched", "dk-" + pid + kind, Duration.ofSeconds(20)).token();
        ObjectNode n = JSON.createObjectNode();
        n.put("meeting_id", "mw").put("participant_id", pid).put("transport_generation", 1).put("controller_epoch", 1)
                .put("kind", kind).put("connect_ticket", ticket)
                .put("sdp_offer", AnswerBuilderTest.offer(kind.equals("publish") ? "sendonly" : "recvonly", false));
        ObjectNode g = n.putObject("grant");
        g.put("participant_id", pid).put("version", 1).put("controller_epoch", 1).put("subscribe", true).put("ttl_ms", 3000);
        g.putObject("publish").put("audio", true).put("video", true).put("screen", false);
        HttpResponse<String> r = call("POST", "/internal/v1/transports", n.toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    /** Sends the entries ({track id, width, height}) and returns the video tracks on the subscriber's slots. */
    private static List<String> subscribe(Object[]... entries) throws Exception {
        ObjectNode body = JSON.createObjectNode().put("controller_epoch", 1);
        var tracks = body.putArray("tracks");
        for (Object[] e : entries) tracks.addObject().put("track_id", (String) e[0]).put("max_width", (int) e[1]).put("max_height", (int) e[2]).put("max_fps", 0);
        HttpResponse<String> r = call("PUT", "/internal/v1/meetings/mw/participants/sub/subscriptions", body.toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<String> out = new ArrayList<>();
        for (JsonNode a : JSON.readTree(r.body()).path("slot_assignments")) if ("video".equals(a.path("kind").asText())) out.add(a.path("track_id").asText());
        return out;
    }

    @Test
    void aZeroByZeroEntryFreesTheSlotAndAWatchedVideoTakesIt() throws Exception {
        transport("sub", "subscribe");                  // one recvonly video section: one video slot
        transport("pubA", "publish");
        transport("pubB", "publish");
        assertThat(subscribe()).as("first published, first on the free slot").containsExactly("pubA:1");

        assertThat(subscribe(new Object[]{"pubA:1", 0, 0}, new Object[]{"pubB:1", 640, 360}))
                .as("A not watched gives up the slot; B, watched, takes it").containsExactly("pubB:1");
        assertThat(subscribe(new Object[]{"pubB:1", 0, 0})).as("nobody watched: no video forwarded").isEmpty();
        assertThat(subscribe()).as("an unwatched video is not put back on the free slot").isEmpty();
        assertThat(subscribe(new Object[]{"pubA:1", 320, 180})).as("watching A again").containsExactly("pubA:1");
    }
}
