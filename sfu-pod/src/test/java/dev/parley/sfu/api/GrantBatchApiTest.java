package dev.parley.sfu.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.sfu.SfuServer;
import dev.parley.sfu.config.SfuConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code PUT /internal/v1/grants/batch} (docs/internal-api.md) against a real SFU in this JVM: several meetings
 * in one request, each fenced on its own controller epoch exactly like {@code PUT /grants}.
 */
class GrantBatchApiTest {
    private static final String SECRET = "batch-test-secret-0123456789";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static SfuServer sfu;

    @BeforeAll
    static void start() throws Exception {
        sfu = new SfuServer(new SfuConfig("sfu-batch", "local", "127.0.0.1", "127.0.0.1", 0, 0, 0, SECRET,
                TicketKeys.generate().toPublicJWK().toJSONString(), "", 5, false, 1_000_000, true));
    }

    @AfterAll
    static void stop() { sfu.close(); }

    private static HttpResponse<String> put(String path, String body, String secret) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sfu.internalPort() + path))
                .PUT(HttpRequest.BodyPublishers.ofString(body));
        if (secret != null) b.header("Authorization", "Bearer " + secret);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String grant(String pid, long version, long epoch) {
        return "{\"participant_id\":\"" + pid + "\",\"version\":" + version + ",\"controller_epoch\":" + epoch
                + ",\"publish\":{\"audio\":true,\"video\":false,\"screen\":false},\"subscribe\":true,\"ttl_ms\":3000}";
    }

    private static String meeting(String mid, long epoch, String... grants) {
        return "{\"meeting_id\":\"" + mid + "\",\"controller_epoch\":" + epoch + ",\"grants\":[" + String.join(",", grants) + "]}";
    }

    private static JsonNode batch(String... meetings) throws Exception {
        HttpResponse<String> r = put("/internal/v1/grants/batch", "{\"meetings\":[" + String.join(",", meetings) + "]}", SECRET);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body()).path("meetings");
    }

    @Test
    void severalMeetingsAreAppliedInOneRequestAndAckedPerMeeting() throws Exception {
        JsonNode res = batch(meeting("b1", 5, grant("a", 3, 5), grant("b", 7, 5)), meeting("b2", 2, grant("c", 1, 2)));
        assertThat(res).hasSize(2);
        assertThat(res.get(0).path("meeting_id").asText()).isEqualTo("b1");
        assertThat(res.get(0).has("error")).isFalse();
        assertThat(res.get(0).path("acks").get(0).path("participant_id").asText()).isEqualTo("a");
        assertThat(res.get(0).path("acks").get(0).path("version").asLong()).isEqualTo(3);
        assertThat(res.get(0).path("acks").get(1).path("version").asLong()).isEqualTo(7);
        assertThat(res.get(1).path("meeting_id").asText()).isEqualTo("b2");
        assertThat(res.get(1).path("acks").get(0).path("version").asLong()).isEqualTo(1);
        // the batch's grants are held: the single-meeting endpoint acks a lower version with the one held
        HttpResponse<String> single = put("/internal/v1/grants", meeting("b1", 5, grant("b", 2, 5)), SECRET);
        assertThat(JSON.readTree(single.body()).path("acks").get(0).path("version").asLong()).isEqualTo(7);
        // and a lower version inside a later batch is ignored the same way
        assertThat(batch(meeting("b1", 5, grant("a", 1, 5))).get(0).path("acks").get(0).path("version").asLong()).isEqualTo(3);
    }

    @Test
    void eachMeetingIsFencedOnItsOwnEpoch() throws Exception {
        assertThat(put("/internal/v1/grants", meeting("f1", 9, grant("a", 4, 9)), SECRET).statusCode()).isEqualTo(200);
        // f1 at an older epoch is refused with the highest epoch; f2 in the same request is still applied
        JsonNode res = batch(meeting("f1", 8, grant("a", 5, 8)), meeting("f2", 1, grant("x", 1, 1)));
        assertThat(res.get(0).path("meeting_id").asText()).isEqualTo("f1");
        assertThat(res.get(0).has("acks")).isFalse();
        assertThat(res.get(0).path("error").path("code").asText()).isEqualTo("stale_epoch");
        assertThat(res.get(0).path("error").path("highest_epoch").asLong()).isEqualTo(9);
        assertThat(res.get(1).path("acks").get(0).path("version").asLong()).isEqualTo(1);
        // the refused batch entry changed nothing: epoch 8 is still stale on the single endpoint, version 4 held
        HttpResponse<String> stale = put("/internal/v1/grants", meeting("f1", 8, grant("a", 6, 8)), SECRET);
        assertThat(stale.statusCode()).isEqualTo(409);
        assertThat(JSON.readTree(stale.body()).path("highest_epoch").asLong()).isEqualTo(9);
        // a newer epoch in a batch takes the meeting over: the old owner's epoch is refused from then on
        JsonNode newer = batch(meeting("f1", 12, grant("a", 1, 12)));
        assertThat(newer.get(0).path("acks").get(0).path("version").asLong()).isEqualTo(1);
        JsonNode old = batch(meeting("f1", 9, grant("a", 5, 9)));
        assertThat(old.get(0).path("error").path("code").asText()).isEqualTo("stale_epoch");
        assertThat(old.get(0).path("error").path("highest_epoch").asLong()).isEqualTo(12);
        // a grant whose epoch differs from its meeting entry's is that meeting's bad_request, not the batch's
        JsonNode mixed = batch(meeting("f3", 3, grant("a", 1, 4)), meeting("f4", 1, grant("y", 2, 1)));
        assertThat(mixed.get(0).path("error").path("code").asText()).isEqualTo("bad_request");
        assertThat(mixed.get(1).path("acks").get(0).path("version").asLong()).isEqualTo(2);
    }

    @Test
    void badBatchesGetClearErrors() throws Exception {
        assertThat(put("/internal/v1/grants/batch", "{\"meetings\":[]}", null).statusCode()).isEqualTo(401);
        assertThat(put("/internal/v1/grants/batch", "{\"meetings\":[]}", "wrong-secret-wrong-secret").statusCode()).isEqualTo(401);
        assertThat(put("/internal/v1/grants/batch", "{not json", SECRET).statusCode()).isEqualTo(400);
        assertThat(put("/internal/v1/grants/batch", "{}", SECRET).statusCode()).isEqualTo(400);
        HttpResponse<String> noId = put("/internal/v1/grants/batch", "{\"meetings\":[{\"controller_epoch\":1,\"grants\":[]}]}", SECRET);
        assertThat(noId.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(noId.body()).path("code").asText()).isEqualTo("bad_request");
        String ttlTooLong = meeting("t1", 1, grant("a", 1, 1).replace("3000", "60000"));
        assertThat(put("/internal/v1/grants/batch", "{\"meetings\":[" + ttlTooLong + "]}", SECRET).statusCode()).isEqualTo(400);
        assertThat(batch()).isEmpty();
    }
}
