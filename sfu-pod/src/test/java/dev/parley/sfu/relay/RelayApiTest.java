package dev.parley.sfu.relay;

import com.nimbusds.jose.jwk.ECKey;
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
 * Bad input on the relay endpoints of a real SFU's internal API: refused whole with a problem+json naming the field,
 * before anything is set up; the key is never echoed. (The media path is covered by bench's RelayTransportTest.)
 */
class RelayApiTest {
    private static final String SECRET = "relay-api-secret-0123456789abcdef";
    private static final String KEY = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw==";   // 28 bytes
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static SfuServer sfu;

    @BeforeAll
    static void start() throws Exception {
        ECKey key = TicketKeys.generate();
        sfu = new SfuServer(new SfuConfig("sfu-r", "local", "127.0.0.1", "127.0.0.1", 0, 0, 0, SECRET,
                key.toPublicJWK().toJSONString(), "", 5, false, 1_000_000, true, SfuConfig.DEFAULT_CONSENT_TIMEOUT_MS, 1));
    }

    @AfterAll
    static void stop() { sfu.close(); }

    private static HttpResponse<String> call(String method, String path, String body, boolean bearer) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sfu.internalPort() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (bearer) b.header("Authorization", "Bearer " + SECRET);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String in(String tracks, String srtpKey) {
        return "{\"relay_id\":\"r1\",\"meeting_id\":\"m\",\"controller_epoch\":3,\"origin_sfu\":\"sfu-a\","
                + "\"srtp\":{\"profile\":\"AEAD_AES_128_GCM\",\"key\":\"" + srtpKey + "\"},\"tracks\":" + tracks + "}";
    }

    private static void assertProblem(HttpResponse<String> r, int status, String code, String detail) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).isEqualTo("application/problem+json");
        assertThat(r.body()).contains("\"code\":\"" + code + "\"").contains(detail);
    }

    @Test
    void relayRequestsNeedTheBearerAndAreCountedWithout() throws Exception {
        long before = refused("unauthenticated");
        assertProblem(call("POST", "/internal/v1/relays/in", in("[{\"track_id\":\"p:0\",\"kind\":\"audio\",\"layers\":[0]}]", KEY), false),
                401, "unauthorized", "bearer");
        assertProblem(call("POST", "/internal/v1/relays/out", "{}", false), 401, "unauthorized", "bearer");
        assertThat(refused("unauthenticated") - before).as("unauthenticated relay requests counted").isEqualTo(2);
        assertThat(call("GET", "/internal/v1/state", null, true).body()).contains("\"relays\":[]");
    }

    /** A meeting this SFU carries at epoch 5 (a grant push put it here), no transports. */
    private static void carry(String meeting) throws Exception {
        String grants = "{\"meeting_id\":\"" + meeting + "\",\"controller_epoch\":5,\"grants\":[{\"participant_id\":\"p\",\"version\":1,"
                + "\"controller_epoch\":5,\"publish\":{\"audio\":true,\"video\":true,\"screen\":false},\"subscribe\":true,\"ttl_ms\":3000}]}";
        assertThat(call("PUT", "/internal/v1/grants", grants, true).statusCode()).isEqualTo(200);
    }

    @Test
    void aStaleEpochRelayGrantIsRefusedCountedAndSetsNothingUp() throws Exception {
        carry("m-stale");
        long before = refused("stale_epoch");
        HttpResponse<String> r = call("POST", "/internal/v1/relays/in",
                in("[{\"track_id\":\"p:0\",\"kind\":\"audio\",\"layers\":[0]}]", KEY).replace("\"m\"", "\"m-stale\""), true);
        assertProblem(r, 409, "stale_epoch", "");
        assertThat(r.body()).contains("\"highest_epoch\":5");
        assertThat(refused("stale_epoch") - before).isEqualTo(1);
        assertThat(call("GET", "/internal/v1/state", null, true).body()).contains("\"relays\":[]");
    }

    @Test
    void aNewOwnerReadsTheMeetingsTracksFencedOnTheEpoch() throws Exception {
        assertProblem(call("GET", "/internal/v1/meetings/m-none/tracks?controller_epoch=5", null, true), 404, "not_found", "meeting not carried");
        carry("m-read");
        assertProblem(call("GET", "/internal/v1/meetings/m-read/tracks", null, true), 400, "bad_request", "controller_epoch: query parameter required");
        assertProblem(call("GET", "/internal/v1/meetings/m-read/tracks?controller_epoch=5", null, false), 401, "unauthorized", "bearer");
        long before = refused("stale_epoch");
        assertProblem(call("GET", "/internal/v1/meetings/m-read/tracks?controller_epoch=4", null, true), 409, "stale_epoch", "");
        assertThat(refused("stale_epoch") - before).isEqualTo(1);
        HttpResponse<String> ok = call("GET", "/internal/v1/meetings/m-read/tracks?controller_epoch=7", null, true);
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
        assertThat(ok.body()).isEqualTo("{\"meeting_id\":\"m-read\",\"controller_epoch\":5,\"tracks\":[]}");
        // a read never raises the epoch: the old owner's epoch 5 is still good here
        assertThat(call("GET", "/internal/v1/meetings/m-read/tracks?controller_epoch=5", null, true).statusCode()).isEqualTo(200);
    }

    /** The SFU's own count of refused relay requests for a reason, from {@code /metrics} (0 before the first). */
    private static long refused(String reason) throws Exception {
        String prefix = "parley_sfu_relay_refused_total{reason=\"" + reason + "\"} ";
        for (String line : call("GET", "/metrics", null, false).body().split("\n")) {
            if (line.startsWith(prefix)) return Long.parseLong(line.substring(prefix.length()).trim());
        }
        return 0;
    }

    @Test
    void malformedBodiesAreRefusedNamingTheField() throws Exception {
        assertProblem(call("POST", "/internal/v1/relays/in", "[1]", true), 400, "bad_request", "body: must be a JSON object");
        assertProblem(call("POST", "/internal/v1/relays/in", in("[]", KEY), true), 400, "bad_request", "tracks: 1 to 64 entries");
        assertProblem(call("POST", "/internal/v1/relays/in",
                in("[{\"track_id\":\"p:1\",\"kind\":\"video\",\"simulcast_layers\":3,\"layers\":[3]}]", KEY), true),
                400, "bad_request", "tracks[0].layers[0]: must be an integer 0..2");
        assertProblem(call("POST", "/internal/v1/relays/in",
                in("[{\"track_id\":\"p:1\",\"kind\":\"data\",\"layers\":[0]}]", KEY), true), 400, "bad_request", "tracks[0].kind");
        HttpResponse<String> badKey = call("POST", "/internal/v1/relays/in",
                in("[{\"track_id\":\"p:0\",\"kind\":\"audio\",\"layers\":[0]}]", "c2VjcmV0LWJ1dC1zaG9ydA=="), true);
        assertProblem(badKey, 400, "bad_request", "srtp.key: must be 28 bytes");
        assertThat(badKey.body()).doesNotContain("c2VjcmV0LWJ1dC1zaG9ydA==");
        String out = "{\"relay_id\":\"r1\",\"meeting_id\":\"m\",\"controller_epoch\":3,\"target_sfu\":\"sfu-b\","
                + "\"target\":{\"address\":\"sfu-b.example\",\"udp_port\":7882},\"rtcp_ssrc\":5,"
                + "\"srtp\":{\"profile\":\"AEAD_AES_128_GCM\",\"key\":\"" + KEY + "\"},\"tracks\":[{\"track_id\":\"p:0\",\"layers\":[{\"index\":0,\"ssrc\":9}]}]}";
        assertProblem(call("POST", "/internal/v1/relays/out", out, true), 400, "bad_request", "target.address: must be an IP address literal");
        assertProblem(call("POST", "/internal/v1/relays/out", out.replace("sfu-b.example", "127.0.0.1").replace("\"rtcp_ssrc\":5", "\"rtcp_ssrc\":0"), true),
                400, "bad_request", "rtcp_ssrc");
        assertProblem(call("POST", "/internal/v1/relays/in",
                in("[{\"track_id\":\"p:0\",\"kind\":\"audio\",\"layers\":[0]}]", KEY).replace("\"sfu-a\"", "\"sfu a\\\"}\""), true),
                400, "bad_request", "origin_sfu");
        assertProblem(call("DELETE", "/internal/v1/relays/r1", null, true), 400, "bad_request", "controller_epoch: query parameter required");
        assertThat(call("GET", "/internal/v1/state", null, true).body()).contains("\"relays\":[]");
    }

    @Test
    void aRelayForAMeetingThisSfuDoesNotCarryIsRefusedAndCounted() throws Exception {
        assertProblem(call("POST", "/internal/v1/relays/in", in("[{\"track_id\":\"p:0\",\"kind\":\"audio\",\"layers\":[0]}]", KEY), true),
                404, "not_found", "meeting not carried by this SFU");
        assertThat(call("GET", "/metrics", null, false).body()).contains("parley_sfu_relay_refused_total{reason=\"unknown_meeting\"} ");
        assertThat(call("DELETE", "/internal/v1/relays/nothing?controller_epoch=1", null, true).statusCode()).isEqualTo(204);
    }
}
