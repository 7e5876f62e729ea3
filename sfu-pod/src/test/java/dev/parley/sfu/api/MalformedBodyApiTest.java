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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every malformed body on every internal endpoint is a 400 problem+json whose detail names the field, and
 * changes nothing: a batch with one bad grant applies none of its good ones. A real SFU in this JVM, a real
 * HTTP client.
 */
class MalformedBodyApiTest {
    private static final String SECRET = "malformed-test-secret-0123456789";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static SfuServer sfu;
    private static TicketSigner signer;

    @BeforeAll
    static void start() throws Exception {
        ECKey key = TicketKeys.generate();
        signer = new TicketSigner(key);
        sfu = new SfuServer(new SfuConfig("sfu-malformed", "local", "127.0.0.1", "127.0.0.1", 0, 0, 0, SECRET,
                key.toPublicJWK().toJSONString(), "", 5, true, 1_000_000, true));
    }

    @AfterAll
    static void stop() { sfu.close(); }

    private static HttpResponse<String> call(String method, String path, String body) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sfu.internalPort() + path))
                .header("Authorization", "Bearer " + SECRET).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        return HTTP.send(req, HttpResponse.BodyHandlers.ofString());
    }

    /** Asserts a 400 bad_request problem whose detail mentions {@code field}. */
    private static void badRequest(String method, String path, String body, String field) throws Exception {
        HttpResponse<String> r = call(method, path, body);
        assertThat(r.statusCode()).as(method + " " + path + " " + body + " → " + r.body()).isEqualTo(400);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        JsonNode p = JSON.readTree(r.body());
        assertThat(p.path("code").asText()).isEqualTo("bad_request");
        assertThat(p.path("detail").asText()).as(body).contains(field);
    }

    private static String grant(String pid, long version, long epoch) {
        return "{\"participant_id\":\"" + pid + "\",\"version\":" + version + ",\"controller_epoch\":" + epoch
                + ",\"publish\":{\"audio\":true,\"video\":false,\"screen\":false},\"subscribe\":true,\"ttl_ms\":3000}";
    }

    private static String grants(String mid, long epoch, String... grants) {
        return "{\"meeting_id\":\"" + mid + "\",\"controller_epoch\":" + epoch + ",\"grants\":[" + String.join(",", grants) + "]}";
    }

    /** The version the SFU holds for {@code pid}: a lower-version grant is acked with it. */
    private static long heldVersion(String mid, long epoch, String pid) throws Exception {
        HttpResponse<String> r = call("PUT", "/internal/v1/grants", grants(mid, epoch, grant(pid, 0, epoch)));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body()).path("acks").get(0).path("version").asLong();
    }

    private static String state() throws Exception {
        return call("GET", "/internal/v1/state", null).body();
    }

    @Test
    void nullBodiesAndNullElementsOfPutGrants() throws Exception {
        badRequest("PUT", "/internal/v1/grants", "null", "body");
        badRequest("PUT", "/internal/v1/grants", "", "body");
        badRequest("PUT", "/internal/v1/grants", "[]", "body");
        badRequest("PUT", "/internal/v1/grants", "{\"grants\":null}", "meeting_id");
        badRequest("PUT", "/internal/v1/grants", "{\"meeting_id\":\"n1\",\"controller_epoch\":1,\"grants\":null}", "grants");
        badRequest("PUT", "/internal/v1/grants", "{\"grants\":[null]}", "meeting_id");
        badRequest("PUT", "/internal/v1/grants", grants("n1", 1, "null"), "grants[0]");
        badRequest("PUT", "/internal/v1/grants", grants("n1", 1, grant("a", 1, 1), "null"), "grants[1]");
        badRequest("PUT", "/internal/v1/grants", "{\"meeting_id\":\"n1\",\"grants\":[]}", "controller_epoch");
        assertThat(state()).as("nothing was created").doesNotContain("\"n1\"");
    }

    @Test
    void grantsMissingFieldsOrOfWrongTypesNameTheField() throws Exception {
        String g = grant("a", 1, 1);
        badRequest("PUT", "/internal/v1/grants", grants("w1", 1, g.replace("\"participant_id\":\"a\",", "")), "grants[0].participant_id");
        badRequest("PUT", "/internal/v1/grants", grants("w1", 1, g.replace("\"version\":1,", "")), "grants[0].version");
        badRequest("PUT", "/internal/v1/grants", grants("w1", 1, g.replace(",\"ttl_ms\":3000", "")), "grants[0].ttl_ms");
        badRequest("PUT", "/internal/v1/grants", grants("w1", 1, g.replace(",\"subscribe\":true", "")), "grants[0].subscribe");
        badRequest("PUT", "/internal/v1/grants", grants("w1", 1, g.replace("\"controller_epoch\":1,", "")), "grants[0].controller_epoch");
        badRequest("PUT", "/internal/v1/grants", grants("w1", 1, g.replace("\"publish\":{\"audio\":true,\"video\":false,\"screen\":false},", "")),
                "grants[0].publish");
        badRequest("PUT", "/internal/v1/grants", grants("w1", 1, g.replace("\"video\":false,", "")), "grants[0].publish.video");
        badRequest("PUT", "/internal/v1/grants", grants("w1", 1, g.replace("\"version\":1", "\"version\":\"1\"")), "grants[0].version");
        badRequest("PUT", "/internal/v1/grants", grants("w1", 1, g.replace("\"subscribe\":true", "\"subscribe\":\"yes\"")), "grants[0].subscribe");
        badRequest("PUT", "/internal/v1/grants", grants("w1", 1, g.replace("\"ttl_ms\":3000", "\"ttl_ms\":1.5")), "grants[0].ttl_ms");
        badRequest("PUT", "/internal/v1/grants", grants("w1", 1, g.replace("\"ttl_ms\":3000", "\"ttl_ms\":60000")), "grants[0].ttl_ms");
        badRequest("PUT", "/internal/v1/grants", grants("w1", 1, g.replace("\"participant_id\":\"a\"", "\"participant_id\":7")),
                "grants[0].participant_id");
        badRequest("PUT", "/internal/v1/grants", "{\"meeting_id\":\"w1\",\"controller_epoch\":\"1\",\"grants\":[]}", "controller_epoch");
        assertThat(state()).doesNotContain("\"w1\"");
    }

    @Test
    void oneBadGrantAppliesNoneOfTheBatch() throws Exception {
        assertThat(call("PUT", "/internal/v1/grants", grants("h1", 1, grant("a", 1, 1))).statusCode()).isEqualTo(200);
        // a valid grant for a, then a grant missing its ttl: refused whole, a keeps version 1
        String noTtl = grant("b", 1, 1).replace(",\"ttl_ms\":3000", "");
        badRequest("PUT", "/internal/v1/grants", grants("h1", 1, grant("a", 5, 1), noTtl), "grants[1].ttl_ms");
        assertThat(heldVersion("h1", 1, "a")).isEqualTo(1);
        // the same at a newer epoch: refused before the epoch moves (epoch 1 is still current)
        badRequest("PUT", "/internal/v1/grants", grants("h1", 2, grant("a", 6, 2), "null"), "grants[1]");
        assertThat(heldVersion("h1", 1, "a")).isEqualTo(1);
        // a grant whose epoch differs from the request's: bad_request, and the good grant before it is not applied
        HttpResponse<String> mixed = call("PUT", "/internal/v1/grants", grants("h1", 1, grant("a", 7, 1), grant("c", 1, 4)));
        assertThat(mixed.statusCode()).as(mixed.body()).isEqualTo(400);
        assertThat(JSON.readTree(mixed.body()).path("detail").asText()).contains("grants[1].controller_epoch");
        assertThat(heldVersion("h1", 1, "a")).isEqualTo(1);
        assertThat(heldVersion("h1", 1, "c")).as("c was never granted").isEqualTo(0);
        assertThat(JSON.readTree(state()).path("meetings").toString()).contains("\"controller_epoch\":1");
    }

    @Test
    void malformedGrantBatchesApplyNothing() throws Exception {
        assertThat(call("PUT", "/internal/v1/grants", grants("k1", 1, grant("a", 1, 1))).statusCode()).isEqualTo(200);
        String path = "/internal/v1/grants/batch";
        badRequest("PUT", path, "null", "body");
        badRequest("PUT", path, "{\"meetings\":null}", "meetings");
        badRequest("PUT", path, "{\"meetings\":[null]}", "meetings[0]");
        badRequest("PUT", path, "{\"meetings\":[{\"meeting_id\":\"k1\",\"controller_epoch\":1,\"grants\":null}]}", "meetings[0].grants");
        // a good entry, then an entry with a null grant and one missing a field: nothing of it is applied
        String good = grants("k1", 1, grant("a", 5, 1)), other = grants("k2", 1, grant("x", 1, 1));
        badRequest("PUT", path, "{\"meetings\":[" + good + "," + grants("k3", 1, grant("y", 1, 1), "null") + "]}", "meetings[1].grants[1]");
        badRequest("PUT", path, "{\"meetings\":[" + good + "," + other + "," + grants("k3", 1, grant("y", 1, 1).replace("\"version\":1,", "")) + "]}",
                "meetings[2].grants[0].version");
        assertThat(heldVersion("k1", 1, "a")).isEqualTo(1);
        assertThat(state()).doesNotContain("\"k2\"").doesNotContain("\"k3\"");
    }

    @Test
    void malformedTransportRequestsAreRefusedBeforeTheTicketIsUsed() throws Exception {
        String path = "/internal/v1/transports";
        badRequest("POST", path, "null", "body");
        String t = signer.issue("t1", "p", 1, "sfu-malformed", "dk", Duration.ofSeconds(20)).token();
        ObjectNode n = JSON.createObjectNode();
        n.put("meeting_id", "t1").put("participant_id", "p").put("transport_generation", 1).put("controller_epoch", 1)
                .put("kind", "publish").put("connect_ticket", t).put("sdp_offer", AnswerBuilderTest.offer("sendonly", false));
        ObjectNode g = n.putObject("grant");
        g.put("participant_id", "p").put("version", 1).put("controller_epoch", 1).put("subscribe", true).put("ttl_ms", 3000);
        g.putObject("publish").put("audio", true).put("video", true).put("screen", false);
        badRequest("POST", path, n.deepCopy().put("kind", "both").toString(), "kind");
        badRequest("POST", path, n.deepCopy().putNull("kind").toString(), "kind");
        badRequest("POST", path, n.deepCopy().put("transport_generation", "one").toString(), "transport_generation");
        ObjectNode noTicket = n.deepCopy();
        noTicket.remove("connect_ticket");
        badRequest("POST", path, noTicket.toString(), "connect_ticket");
        ObjectNode grantWithoutPid = n.deepCopy();
        ((ObjectNode) grantWithoutPid.path("grant")).remove("participant_id");
        badRequest("POST", path, grantWithoutPid.toString(), "grant.participant_id");
        ObjectNode nullSource = n.deepCopy();
        nullSource.putArray("sources").addNull();
        badRequest("POST", path, nullSource.toString(), "sources[0]");
        badRequest("POST", path, n.deepCopy().put("slot_deltas", "yes").toString(), "slot_deltas");
        assertThat(state()).doesNotContain("\"t1\"");
        // none of them used the ticket up
        HttpResponse<String> ok = call("POST", path, n.toString());
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
    }

    @Test
    void malformedSubscriptionsDeletesAndTestHooks() throws Exception {
        String sub = "/internal/v1/meetings/s1/participants/p/subscriptions";
        badRequest("PUT", sub, "null", "body");
        badRequest("PUT", sub, "{\"controller_epoch\":1,\"tracks\":null}", "tracks");
        badRequest("PUT", sub, "{\"controller_epoch\":1,\"tracks\":[null]}", "tracks[0]");
        badRequest("PUT", sub, "{\"controller_epoch\":1,\"tracks\":[{\"track_id\":\"x:1\",\"max_width\":\"wide\",\"max_height\":180,\"max_fps\":30}]}",
                "tracks[0].max_width");
        badRequest("PUT", sub, "{\"controller_epoch\":1,\"tracks\":[{\"track_id\":\"x:1\",\"max_width\":320,\"max_height\":180,\"max_fps\":30,\"pinned\":\"yes\"}]}",
                "tracks[0].pinned");
        badRequest("PUT", sub, "{\"tracks\":[]}", "controller_epoch");
        badRequest("DELETE", "/internal/v1/meetings/s1/participants/p?controller_epoch=abc", null, "controller_epoch");
        badRequest("DELETE", "/internal/v1/meetings/s1/participants/p", null, "controller_epoch");
        badRequest("POST", "/internal/v1/test/loss", "null", "body");
        badRequest("POST", "/internal/v1/test/loss", "{\"egress_loss_percent\":\"five\"}", "egress_loss_percent");
        badRequest("POST", "/internal/v1/test/loss", "{\"ingress_loss_percent\":150}", "ingress_loss_percent");
        badRequest("POST", "/internal/v1/test/loss", "{\"transport_feedback\":\"off\"}", "transport_feedback");
        badRequest("POST", "/internal/v1/test/link", "null", "body");
        badRequest("POST", "/internal/v1/test/link", "{\"meeting_id\":\"s1\",\"participant_id\":\"p\",\"delay_ms\":\"slow\"}", "delay_ms");
        assertThat(call("POST", "/internal/v1/test/loss", "{}").statusCode()).as("all fields optional").isEqualTo(200);
    }
}
