package dev.parley.recorder.state;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.parley.recorder.manifest.JobState;
import dev.parley.recorder.manifest.Manifest;
import dev.parley.recorder.manifest.ManifestCodec;
import dev.parley.recorder.storage.ObjectKeys;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The state push to the controller, against a real HTTP server on loopback. */
class HttpJobStateReporterTest {
    record Received(String path, String auth, JsonNode body) {
    }

    @Test
    void postsStatesInOrderWithTheBearerSecretAndRetriesServerErrors() throws Exception {
        List<Received> got = new CopyOnWriteArrayList<>();
        int[] calls = {0};
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        server.createContext("/", ex -> {
            byte[] body = ex.getRequestBody().readAllBytes();
            int status = calls[0]++ == 0 ? 503 : 204; // the first attempt fails: must be retried
            if (status == 204) {
                got.add(new Received(ex.getRequestURI().getPath(), ex.getRequestHeaders().getFirst("Authorization"),
                        ManifestCodec.JSON.readTree(body)));
            }
            ex.sendResponseHeaders(status, -1);
            ex.close();
        });
        server.start();
        try {
            HttpJobStateReporter r = new HttpJobStateReporter(
                    URI.create("http://127.0.0.1:" + server.getAddress().getPort()), "s3cret", ObjectKeys.NONE);
            Manifest m = new Manifest();
            m.jobId = "job-7";
            m.generation = 2;
            m.pod = "recorder-1";
            m.state = JobState.RECORDING;
            r.report(m.copy());
            m.state = JobState.PARTIAL;
            m.missingRanges.add(Manifest.TimeRange.of("cam", 1000, 5000, "no media recorded").withOrigin(0));
            r.report(m.copy());
            r.flush(15_000);
        } finally {
            server.stop(0);
        }
        assertThat(got).hasSize(2);
        assertThat(got).allMatch(x -> x.path().equals("/internal/v1/recordings/job-7/state"))
                .allMatch(x -> "Bearer s3cret".equals(x.auth()));
        assertThat(got.get(0).body().get("state").asText()).isEqualTo("recording");
        JsonNode last = got.get(1).body();
        assertThat(last.get("state").asText()).isEqualTo("partial");
        assertThat(last.get("generation").asLong()).isEqualTo(2);
        assertThat(last.get("missing_ranges").get(0).get("to_offset_ms").asLong()).isEqualTo(5000);
        assertThat(last.get("manifest_key").asText()).isEqualTo("job-7/manifest/00000000000000000002.json");
    }

    @Test
    void theControllersAnswerCarriesStopAndResubscribe() throws Exception {
        int[] calls = {0};
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        server.createContext("/", ex -> {
            ex.getRequestBody().readAllBytes();
            int n = calls[0]++;
            byte[] answer = ("{\"applied\":true,\"resubscribe\":" + (n == 1) + ",\"stop_requested\":" + (n > 1)
                    + "}").getBytes();
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, answer.length);
            ex.getResponseBody().write(answer);
            ex.close();
        });
        server.start();
        List<String> stops = new CopyOnWriteArrayList<>();
        try {
            HttpJobStateReporter r = new HttpJobStateReporter(
                    URI.create("http://127.0.0.1:" + server.getAddress().getPort()), "s3cret", ObjectKeys.NONE);
            r.onStopRequested(() -> stops.add("stop"));
            r.onResubscribe(() -> stops.add("resubscribe"));
            Manifest m = new Manifest();
            m.jobId = "job-8";
            m.generation = 1;
            m.pod = "recorder-0";
            m.state = JobState.RECORDING;
            r.report(m.copy());
            r.flush(15_000);
            assertThat(stops).isEmpty();
            r.report(m.copy());
            r.report(m.copy());
            r.flush(15_000);
        } finally {
            server.stop(0);
        }
        assertThat(stops).containsExactly("resubscribe", "stop");
    }

    @Test
    void theManifestKeyCarriesTheS3Prefix() throws Exception {
        List<JsonNode> got = new CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        server.createContext("/", ex -> {
            got.add(ManifestCodec.JSON.readTree(ex.getRequestBody().readAllBytes()));
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        server.start();
        try {
            HttpJobStateReporter r = new HttpJobStateReporter(
                    URI.create("http://127.0.0.1:" + server.getAddress().getPort()), null, ObjectKeys.of("tenant-a/2026/"));
            Manifest m = new Manifest();
            m.jobId = "job-9";
            m.generation = 4;
            m.pod = "recorder-0";
            m.state = JobState.READY;
            m.result = new Manifest.Result("tenant-a/2026/job-9/4/final/composite.mp4", "ab", 1, 1.0, java.util.Map.of());
            r.report(m.copy());
            r.flush(15_000);
        } finally {
            server.stop(0);
        }
        assertThat(got).hasSize(1);
        assertThat(got.get(0).get("manifest_key").asText())
                .isEqualTo("tenant-a/2026/job-9/manifest/00000000000000000004.json");
        assertThat(got.get(0).get("result").get("composite_key").asText())
                .isEqualTo("tenant-a/2026/job-9/4/final/composite.mp4");
    }
}
