package dev.parley.sfu.api;

import dev.parley.testsupport.metrics.ExportedSeries;
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

import static org.assertj.core.api.Assertions.assertThat;

/** The internal API's contract (docs/internal-api.md) against a real SFU process-in-JVM, without a browser. */
class InternalApiTest {
    private static final String SECRET = "api-test-secret-0123456789";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static SfuServer sfu;
    private static TicketSigner signer;

    @BeforeAll
    static void start() throws Exception {
        ECKey key = TicketKeys.generate();
        signer = new TicketSigner(key);
        sfu = new SfuServer(new SfuConfig("sfu-api", "local", "127.0.0.1", "127.0.0.1", 0, 0, 0, SECRET,
                key.toPublicJWK().toJSONString(), "", 5, false, 1_000_000, true));
    }

    @AfterAll
    static void stop() { sfu.close(); }

    private static HttpResponse<String> call(String method, String path, String body, String secret) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sfu.internalPort() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (secret != null) b.header("Authorization", "Bearer " + secret);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static ObjectNode transport(String meeting, String pid, long epoch, String ticket) {
        ObjectNode n = JSON.createObjectNode();
        n.put("meeting_id", meeting).put("participant_id", pid).put("transport_generation", 1).put("controller_epoch", epoch)
                .put("kind", "publish").put("connect_ticket", ticket).put("sdp_offer", AnswerBuilderTest.offer("sendonly", false));
        ObjectNode g = n.putObject("grant");
        g.put("participant_id", pid).put("version", 1).put("controller_epoch", epoch).put("subscribe", true).put("ttl_ms", 3000);
        g.putObject("publish").put("audio", true).put("video", true).put("screen", false);
        return n;
    }

    @Test
    void bearerSecretIsRequired() throws Exception {
        assertThat(call("GET", "/internal/v1/state", null, null).statusCode()).isEqualTo(401);
        assertThat(call("GET", "/internal/v1/state", null, "wrong-secret-wrong-secret").statusCode()).isEqualTo(401);
        HttpResponse<String> ok = call("GET", "/internal/v1/state", null, SECRET);
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(ok.body()).path("state").asText()).isEqualTo("ACTIVE");
    }

    @Test
    void ticketIsVerifiedSingleUseAndBoundToTheParticipant() throws Exception {
        String t = signer.issue("m1", "p1", 1, "sfu-api", "dk", Duration.ofSeconds(20)).token();
        HttpResponse<String> r = call("POST", "/internal/v1/transports", transport("m1", "p1", 3, t).toString(), SECRET);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.path("sdp_answer").asText()).contains("a=ice-lite", "a=setup:passive");
        assertThat(body.path("transport_id").asText()).isNotBlank();

        HttpResponse<String> replay = call("POST", "/internal/v1/transports", transport("m1", "p1", 3, t).toString(), SECRET);
        assertThat(replay.statusCode()).isEqualTo(401);
        assertThat(JSON.readTree(replay.body()).path("code").asText()).isEqualTo("bad_ticket");
        assertThat(replay.headers().firstValue("Content-Type")).hasValue("application/problem+json");

        String other = signer.issue("m1", "someone-else", 1, "sfu-api", "dk", Duration.ofSeconds(20)).token();
        assertThat(call("POST", "/internal/v1/transports", transport("m1", "p1", 3, other).toString(), SECRET).statusCode()).isEqualTo(401);
        String wrongSfu = signer.issue("m1", "p1", 1, "sfu-other", "dk", Duration.ofSeconds(20)).token();
        assertThat(call("POST", "/internal/v1/transports", transport("m1", "p1", 3, wrongSfu).toString(), SECRET).statusCode()).isEqualTo(401);
        assertThat(call("POST", "/internal/v1/transports", transport("m1", "p1", 3, "garbage").toString(), SECRET).statusCode()).isEqualTo(401);
    }

    @Test
    void staleEpochIsRejectedWithTheHighestEpoch() throws Exception {
        String grants = "{\"meeting_id\":\"m2\",\"controller_epoch\":%d,\"grants\":[{\"participant_id\":\"a\",\"version\":%d,"
                + "\"controller_epoch\":%d,\"publish\":{\"audio\":true,\"video\":true,\"screen\":false},\"subscribe\":true,\"ttl_ms\":3000}]}";
        HttpResponse<String> r = call("PUT", "/internal/v1/grants", grants.formatted(9, 4, 9), SECRET);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(r.body()).path("acks").get(0).path("version").asLong()).isEqualTo(4);
        // same epoch, lower version: ignored, acked with the version held
        r = call("PUT", "/internal/v1/grants", grants.formatted(9, 2, 9), SECRET);
        assertThat(JSON.readTree(r.body()).path("acks").get(0).path("version").asLong()).isEqualTo(4);
        r = call("PUT", "/internal/v1/grants", grants.formatted(8, 5, 8), SECRET);
        assertThat(r.statusCode()).isEqualTo(409);
        JsonNode err = JSON.readTree(r.body());
        assertThat(err.path("code").asText()).isEqualTo("stale_epoch");
        assertThat(err.path("highest_epoch").asLong()).isEqualTo(9);
        assertThat(call("DELETE", "/internal/v1/meetings/m2/participants/a?controller_epoch=8", null, SECRET).statusCode()).isEqualTo(409);
        assertThat(call("DELETE", "/internal/v1/meetings/m2/participants/a?controller_epoch=9", null, SECRET).statusCode()).isEqualTo(204);
        assertThat(call("DELETE", "/internal/v1/meetings/m2/participants/a?controller_epoch=9", null, SECRET).statusCode()).isEqualTo(204);
    }

    @Test
    void publishSourcesAreValidatedBeforeAnythingChanges() throws Exception {
        String t = signer.issue("m5", "p", 1, "sfu-api", "dk", Duration.ofSeconds(20)).token();
        ObjectNode bad = transport("m5", "p", 1, t);
        bad.putArray("sources").addObject().put("mid", "0").put("source", "window");
        HttpResponse<String> r = call("POST", "/internal/v1/transports", bad.toString(), SECRET);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(JSON.readTree(r.body()).path("code").asText()).isEqualTo("bad_request");
        assertThat(call("GET", "/internal/v1/state", null, SECRET).body()).as("no meeting created").doesNotContain("\"m5\"");
        // the ticket was not used up by the refused request; the same offer declaring its video a screen share
        ObjectNode good = transport("m5", "p", 1, t);
        String videoMid = mid(good.path("sdp_offer").asText(), "video");
        good.putArray("sources").addObject().put("mid", videoMid).put("source", "screen");
        r = call("POST", "/internal/v1/transports", good.toString(), SECRET);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode state = JSON.readTree(call("GET", "/internal/v1/state", null, SECRET).body());
        JsonNode p = null;
        for (JsonNode m : state.path("meetings")) if (m.path("meeting_id").asText().equals("m5")) p = m.path("participants").get(0);
        assertThat(p).isNotNull();
        assertThat(p.path("track_sources").path("p:" + videoMid).asText()).isEqualTo("screen");
        assertThat(p.path("rtt_ms").asInt()).as("no receiver report yet").isEqualTo(-1);
    }

    /** The mid of the first m-section of {@code kind} in an SDP. */
    private static String mid(String sdp, String kind) {
        boolean in = false;
        for (String line : sdp.split("\r?\n")) {
            if (line.startsWith("m=")) in = line.startsWith("m=" + kind);
            if (in && line.startsWith("a=mid:")) return line.substring(6).trim();
        }
        throw new AssertionError("no " + kind + " section");
    }

    @Test
    void badInputGetsClearErrors() throws Exception {
        assertThat(call("PUT", "/internal/v1/grants", "{not json", SECRET).statusCode()).isEqualTo(400);
        String ttlTooLong = "{\"meeting_id\":\"m3\",\"controller_epoch\":1,\"grants\":[{\"participant_id\":\"a\",\"version\":1,"
                + "\"controller_epoch\":1,\"publish\":{\"audio\":true,\"video\":true,\"screen\":false},\"subscribe\":true,\"ttl_ms\":60000}]}";
        assertThat(call("PUT", "/internal/v1/grants", ttlTooLong, SECRET).statusCode()).isEqualTo(400);
        String t = signer.issue("m3", "p", 1, "sfu-api", "dk", Duration.ofSeconds(20)).token();
        ObjectNode bad = transport("m3", "p", 1, t).put("sdp_offer", "v=0\r\nthis is not sdp");
        HttpResponse<String> r = call("POST", "/internal/v1/transports", bad.toString(), SECRET);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(r.body()).path("code").asText()).isEqualTo("bad_sdp");
        assertThat(call("GET", "/internal/v1/nope", null, SECRET).statusCode()).isEqualTo(404);
        // the test-only loss switch does not exist unless PARLEY_SFU_TEST_HOOKS=true
        assertThat(call("POST", "/internal/v1/test/loss", "{\"egress_loss_percent\":5}", SECRET).statusCode()).isEqualTo(404);
    }

    @Test
    void healthReadinessAndMetrics() throws Exception {
        assertThat(call("GET", "/healthz", null, null).statusCode()).isEqualTo(200);
        assertThat(call("GET", "/readyz", null, null).statusCode()).isEqualTo(200);
        String m = call("GET", "/metrics", null, null).body();
        assertThat(m).contains("parley_sfu_ingress_bytes_total", "parley_sfu_egress_bytes_total",
                "parley_sfu_packet_queue_age_seconds", "parley_sfu_transports", "parley_sfu_subscriptions",
                "parley_sfu_nacks_received_total", "parley_sfu_plis_sent_total", "parley_sfu_drops_total",
                "parley_sfu_srtp_auth_failures_total", "parley_sfu_forward_latency_seconds_bucket{le=\"0.000025\"}");
        // every pod: JVM and process series next to its own (docs/observability.md), base units only
        assertThat(m).containsPattern("(?m)^jvm_memory_used_bytes\\{").containsPattern("(?m)^process_cpu_seconds_total ")
                .containsPattern("(?m)^process_start_time_seconds ")
                .doesNotContainPattern("(?m)^parley_\\w*_(ms|us|bps)(_|\\{| )");
        assertThat(ExportedSeries.missingFrom(m, "sfu")).as("docs/observability.md's SFU series on /metrics").isEmpty();
    }
}
