package dev.parley.sfu.api;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.nimbusds.jose.jwk.ECKey;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.sfu.SfuServer;
import dev.parley.sfu.config.SfuConfig;
import org.junit.jupiter.api.AfterAll;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Jazzer against a real SFU's internal API: any body on any of its write endpoints (transports, grants, grant
 * batches, subscriptions, participant removal, relays in and out, relay close) is answered 2xx or 4xx, never 5xx,
 * and the server keeps answering. The relay requests carry the relay grant and its SRTP key, so this is also the
 * fuzz target for relay messages (issue #20). Regression mode (the default build) runs the seeds once.
 */
class InternalApiFuzzTest {
    private static final String SECRET = "fuzz-secret-0123456789abcdef0123";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final String[][] ROUTES = {
        {"POST", "/internal/v1/transports"},
        {"PUT", "/internal/v1/grants"},
        {"PUT", "/internal/v1/grants/batch"},
        {"PUT", "/internal/v1/meetings/m1/participants/p1/subscriptions"},
        {"DELETE", "/internal/v1/meetings/m1/participants/p1?controller_epoch=2"},
        {"POST", "/internal/v1/relays/in"},
        {"POST", "/internal/v1/relays/out"},
        {"DELETE", "/internal/v1/relays/r1?controller_epoch=2"},
    };
    /** Started with the class, before the first input: an SFU's start is not part of any execution's time. */
    private static final SfuServer SFU = start();

    private static SfuServer start() {
        try {
            ECKey key = TicketKeys.generate();
            return new SfuServer(new SfuConfig("sfu-fuzz", "local", "127.0.0.1", "127.0.0.1", 0, 0, 0, SECRET,
                    key.toPublicJWK().toJSONString(), "", 5, false, 1_000_000, false, SfuConfig.DEFAULT_CONSENT_TIMEOUT_MS, 1));
        } catch (Exception e) {
            throw new IllegalStateException("SFU did not start", e);
        }
    }

    @AfterAll
    static void stop() {
        SFU.close();
    }

    @FuzzTest(maxDuration = "20s")
    void writesNeverFailTheServer(FuzzedDataProvider data) throws Exception {
        String[] route = ROUTES[data.consumeInt(0, ROUTES.length - 1)];
        String path = data.consumeBoolean() ? route[1] : route[1].replace("m1", data.consumeAsciiString(12))
                .replace("r1", data.consumeAsciiString(12));
        byte[] body = data.consumeRemainingAsBytes();
        URI uri;
        try {
            uri = URI.create("http://127.0.0.1:" + SFU.internalPort() + path);
        } catch (IllegalArgumentException notAUri) {
            return; // the client could not send it either
        }
        HttpRequest req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + SECRET).header("Content-Type", "application/json")
                .method(route[0], HttpRequest.BodyPublishers.ofByteArray(body)).build();
        HttpResponse<String> r;
        try {
            r = HTTP.send(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (java.io.IOException noAnswer) {
            throw new AssertionError("no answer to " + route[0] + " " + path + " " + new String(body, StandardCharsets.UTF_8), noAnswer);
        }
        assertThat(r.statusCode()).as("%s %s %s -> %s", route[0], path, new String(body, StandardCharsets.UTF_8), r.body())
                .isBetween(200, 499);
    }
}
