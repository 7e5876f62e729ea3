package dev.parley.turn;

import dev.parley.testsupport.metrics.ExportedSeries;
import dev.parley.media.stun.StunClass;
import dev.parley.platform.turn.TurnCredential;
import dev.parley.turn.support.TestTurnClient;
import dev.parley.turn.support.TurnFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The pod's internal port (health, readiness, metrics, state, drain) and the drain lifecycle. */
class TurnPodTest {
    private final HttpClient http = HttpClient.newHttpClient();
    private TurnPod pod;

    @AfterEach
    void stop() {
        if (pod != null) {
            pod.close();
        }
    }

    private HttpResponse<String> get(String path) throws Exception {
        return get(path, null);
    }

    private HttpResponse<String> get(String path, String authorization) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + pod.internalPort() + path));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String bearer) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + pod.internalPort() + path))
                .POST(HttpRequest.BodyPublishers.ofString("{}"));
        if (bearer != null) {
            b.header("Authorization", "Bearer " + bearer);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void healthMetricsAndDrainToExit() throws Exception {
        pod = new TurnPod(TurnFixture.config(Map.of("PARLEY_INTERNAL_SECRET", "internal-s3cret")),
                System::currentTimeMillis).start();
        assertThat(get("/healthz").statusCode()).isEqualTo(200);
        assertThat(get("/readyz").statusCode()).isEqualTo(200);
        assertThat(get("/nope").statusCode()).isEqualTo(404);

        TestTurnClient c = TestTurnClient.udp(new InetSocketAddress("127.0.0.1", pod.server().port()));
        TurnCredential cred = TurnFixture.credential(TurnFixture.SECRET, "participant-secret-name", Duration.ofHours(1));
        assertThat(c.allocate(cred.username(), cred.password()).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);

        String metrics = get("/metrics").body();
        assertThat(metrics).contains("parley_turn_allocations 1", "parley_turn_auth_failures_total{reason=\"missing_integrity\"} 1",
                "parley_turn_relayed_packets_total{direction=\"client_to_peer\"} 0", "# TYPE parley_turn_allocations gauge");
        assertThat(metrics).doesNotContain("participant-secret-name").doesNotContain(cred.password());
        // every pod: JVM and process series next to its own (docs/observability.md)
        assertThat(metrics).containsPattern("(?m)^jvm_memory_used_bytes\\{").containsPattern("(?m)^process_cpu_seconds_total ")
                .containsPattern("(?m)^process_start_time_seconds ");
        assertThat(ExportedSeries.missingFrom(metrics, "turn")).as("docs/observability.md's TURN series on /metrics").isEmpty();
        assertThat(get("/state", "Bearer internal-s3cret").body()).contains("\"state\":\"ACTIVE\"", "\"allocations\":1", "\"relayed_bps\"");

        assertThat(post("/drain", null).statusCode()).isEqualTo(401);
        assertThat(post("/drain", "wrong").statusCode()).isEqualTo(401);
        HttpResponse<String> drained = post("/drain?grace_seconds=30", "internal-s3cret");
        assertThat(drained.statusCode()).isEqualTo(202);
        assertThat(drained.body()).contains("DRAINING", "\"allocations\":1");
        assertThat(get("/readyz").statusCode()).isEqualTo(503);
        assertThat(get("/state", "Bearer internal-s3cret").body()).contains("\"state\":\"DRAINING\"");
        // new allocations refused, the pod waits for the existing one
        TestTurnClient late = TestTurnClient.udp(new InetSocketAddress("127.0.0.1", pod.server().port()));
        assertThat(late.allocate(cred.username(), cred.password()).errorCode()).isEqualTo(403);
        assertThat(pod.awaitStopped(1, TimeUnit.SECONDS)).isFalse();
        // the last allocation leaves: the pod stops by itself
        assertThat(c.refresh(0).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        assertThat(pod.awaitStopped(5, TimeUnit.SECONDS)).isTrue();
        c.close();
        late.close();
    }

    @Test
    void stateNeedsTheInternalSecretWhileHealthReadinessAndMetricsStayOpen() throws Exception {
        pod = new TurnPod(TurnFixture.config(Map.of("PARLEY_INTERNAL_SECRET", "internal-s3cret")),
                System::currentTimeMillis).start();
        for (String wrong : new String[] {null, "Bearer wrong", "Bearer internal-s3cre", "Bearer internal-s3cretX",
                "internal-s3cret", "Basic internal-s3cret", "Bearer "}) {
            HttpResponse<String> r = get("/state", wrong);
            assertThat(r.statusCode()).as("Authorization: %s", wrong).isEqualTo(401);
            assertThat(r.headers().firstValue("Content-Type")).as("Authorization: %s", wrong)
                    .hasValue("application/problem+json");
            assertThat(r.body()).contains("\"status\":401").doesNotContain("\"allocations\"", "internal-s3cret");
        }
        HttpResponse<String> ok = get("/state", "Bearer internal-s3cret");
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.body()).contains("\"state\":\"ACTIVE\"", "\"allocations\":0");
        // documented as open: probes and scrapes carry no secret
        assertThat(get("/healthz").statusCode()).isEqualTo(200);
        assertThat(get("/readyz").statusCode()).isEqualTo(200);
        assertThat(get("/metrics").statusCode()).isEqualTo(200);
    }

    @Test
    void withoutAConfiguredSecretStateAndDrainAcceptNobody() throws Exception {
        for (Map<String, String> env : java.util.List.of(Map.<String, String>of(), Map.of("PARLEY_INTERNAL_SECRET", " "))) {
            pod = new TurnPod(TurnFixture.config(env), System::currentTimeMillis).start();
            assertThat(get("/state").statusCode()).isEqualTo(401);
            assertThat(get("/state", "Bearer ").statusCode()).isEqualTo(401);
            assertThat(get("/state", "Bearer  ").statusCode()).isEqualTo(401);
            assertThat(post("/drain", null).statusCode()).isEqualTo(401);
            assertThat(post("/drain", " ").statusCode()).isEqualTo(401);
            assertThat(pod.server().draining()).isFalse();
            assertThat(get("/healthz").statusCode()).isEqualTo(200);
            pod.close();
        }
    }

    @Test
    void drainEndsAtGraceEvenWithAllocationsLeft() throws Exception {
        pod = new TurnPod(TurnFixture.config(Map.of("PARLEY_INTERNAL_SECRET", "internal-s3cret")),
                System::currentTimeMillis).start();
        TestTurnClient c = TestTurnClient.udp(new InetSocketAddress("127.0.0.1", pod.server().port()));
        TurnCredential cred = TurnFixture.credential(TurnFixture.SECRET, "p", Duration.ofHours(1));
        c.allocate(cred.username(), cred.password());
        assertThat(post("/drain?grace_seconds=1", "internal-s3cret").statusCode()).isEqualTo(202);
        assertThat(pod.awaitStopped(5, TimeUnit.SECONDS)).isTrue();
        c.close();
    }
}
