package dev.parley.bench.controller;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.grant.Grant;
import dev.parley.platform.grant.GrantAck;
import dev.parley.platform.grant.PublishRights;
import dev.parley.platform.grant.PutGrantBatchRequest;
import dev.parley.platform.internal.PutGrantBatchResponse;
import dev.parley.platform.grant.PutGrantsRequest;
import dev.parley.platform.grant.PutGrantsResponse;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stub SFU's HTTP side with the same client the controller uses (JDK HttpClient, HTTP/1.1, keep-alive) and
 * the platform's own grant records serialised and parsed by Jackson: the answers must be what a real SFU's
 * acknowledgements look like to the controller.
 */
class BenchSfuStubTest {
    private static final String SECRET = "stub-secret";
    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private HttpResponse<byte[]> put(BenchSfuStub stub, String path, String auth, byte[] body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(stub.url() + path)).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofByteArray(body));
        if (auth != null) {
            b.header("Authorization", auth);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static List<Grant> grants(String prefix, int n) {
        List<Grant> g = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            g.add(new Grant(prefix + i, 10 + i, 7, PublishRights.NONE, i % 2 == 0, 3000));
        }
        return g;
    }

    @Test
    void acknowledgesEveryGrantOfAPushWithItsVersionOverOneKeepAliveConnection() throws Exception {
        try (BenchSfuStub stub = new BenchSfuStub(SECRET)) {
            for (int round = 0; round < 20; round++) {
                PutGrantsRequest req = new PutGrantsRequest("meeting-" + round, 7, grants("p\"q-" + round + "-", round % 4 + 1));
                HttpResponse<byte[]> r = put(stub, "/internal/v1/grants", "Bearer " + SECRET, json.writeValueAsBytes(req));
                assertThat(r.statusCode()).isEqualTo(200);
                List<GrantAck> acks = json.readValue(r.body(), PutGrantsResponse.class).acks();
                assertThat(acks).containsExactlyElementsOf(req.grants().stream().map(g -> new GrantAck(g.participantId(), g.version())).toList());
            }
        }
    }

    @Test
    void acknowledgesABatchMeetingByMeetingInOrder() throws Exception {
        try (BenchSfuStub stub = new BenchSfuStub(SECRET)) {
            List<PutGrantsRequest> meetings = new ArrayList<>();
            for (int m = 0; m < 50; m++) {
                meetings.add(new PutGrantsRequest("m" + m, 3, grants("m" + m + "p", 20)));
            }
            HttpResponse<byte[]> r = put(stub, "/internal/v1/grants/batch", "Bearer " + SECRET,
                    json.writeValueAsBytes(new PutGrantBatchRequest(meetings)));
            assertThat(r.statusCode()).isEqualTo(200);
            List<PutGrantBatchResponse.MeetingResult> results = json.readValue(r.body(), PutGrantBatchResponse.class).meetings();
            assertThat(results).hasSize(50);
            for (int m = 0; m < 50; m++) {
                assertThat(results.get(m).meetingId()).isEqualTo("m" + m);
                assertThat(results.get(m).error()).isNull();
                assertThat(results.get(m).acks()).containsExactlyElementsOf(
                        meetings.get(m).grants().stream().map(g -> new GrantAck(g.participantId(), g.version())).toList());
            }
        }
    }

    @Test
    void refusesAWrongSecretAndMalformedBodiesAndAnswersOtherPathsWith204() throws Exception {
        try (BenchSfuStub stub = new BenchSfuStub(SECRET)) {
            byte[] ok = json.writeValueAsBytes(new PutGrantsRequest("m", 1, grants("p", 1)));
            assertThat(put(stub, "/internal/v1/grants", null, ok).statusCode()).isEqualTo(401);
            assertThat(put(stub, "/internal/v1/grants", "Bearer wrong", ok).statusCode()).isEqualTo(401);
            assertThat(put(stub, "/internal/v1/grants", "Bearer " + SECRET, "{\"grants\":[{\"version\":1}]}".getBytes()).statusCode()).isEqualTo(400);
            assertThat(put(stub, "/internal/v1/grants", "Bearer " + SECRET, "{\"meeting_id\":\"m\",".getBytes()).statusCode()).isEqualTo(400);
            assertThat(put(stub, "/internal/v1/grants/batch", "Bearer " + SECRET, "{\"x\":1}".getBytes()).statusCode()).isEqualTo(400);
            assertThat(put(stub, "/internal/v1/meetings/m/participants/p/subscriptions", "Bearer " + SECRET, "{}".getBytes()).statusCode())
                    .isEqualTo(204);
            // the connection is still good after all that
            assertThat(put(stub, "/internal/v1/grants", "Bearer " + SECRET, ok).statusCode()).isEqualTo(200);
        }
    }
}
