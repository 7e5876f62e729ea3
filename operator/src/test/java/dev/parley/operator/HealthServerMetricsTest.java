package dev.parley.operator;

import dev.parley.testsupport.metrics.ExportedSeries;
import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.operator.metrics.OperatorMetrics;
import dev.parley.testsupport.net.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** The operator's {@code /metrics} on the health port, as Prometheus scrapes it (OperatorMain's wiring). */
class HealthServerMetricsTest {
    @Test
    void metricsHaveParleyJvmAndProcessSeries() throws Exception {
        OperatorMetrics metrics = new OperatorMetrics();
        metrics.poolObserved("SfuPool", "media", "eu", 2, 0, 1.0);
        int port = FreePorts.tcp();
        HealthServer.start("127.0.0.1", port, metrics::render);
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("parley_operator_pool_pods{kind=\"SfuPool\",namespace=\"media\",pool=\"eu\"} 2")
                .containsPattern("(?m)^jvm_memory_used_bytes\\{").containsPattern("(?m)^jvm_threads_current ")
                .containsPattern("(?m)^process_cpu_seconds_total ").containsPattern("(?m)^process_start_time_seconds ");
        assertThat(ExportedSeries.missingFrom(r.body(), "operator")).as("docs/observability.md's operator series").isEmpty();
    }
}
