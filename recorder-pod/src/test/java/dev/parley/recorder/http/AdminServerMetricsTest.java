package dev.parley.recorder.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.recorder.metrics.RecorderMetrics;
import dev.parley.testsupport.metrics.ExportedSeries;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The recorder's {@code /metrics} as Prometheus scrapes it: its own series plus JVM and process series. */
class AdminServerMetricsTest {
    @Test
    void docsListExactlyTheRecordersSeries() throws Exception {
        RecorderMetrics metrics = new RecorderMetrics();
        Set<String> names = new TreeSet<>();
        for (Field f : RecorderMetrics.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                String name = (String) f.get(null);
                names.add(name);
                if (name.endsWith("_total")) {
                    metrics.inc(name, 1);
                } else {
                    metrics.gauge(name, "", () -> 1);
                }
            }
        }
        Set<String> listed = new TreeSet<>();
        ExportedSeries.ofPod("recorder").forEach(s -> listed.add(s.name()));
        listed.removeIf(n -> !n.startsWith("parley_"));
        assertThat(listed).isEqualTo(names);
        assertThat(ExportedSeries.missingFrom(metrics.render(), "recorder")).isEmpty();
    }

    @Test
    void theTrackLabelIsDroppedWhateverItsPosition() {
        assertThat(RecorderMetrics.withoutTrack("a_total{track=\"x\"}")).isEqualTo("a_total");
        assertThat(RecorderMetrics.withoutTrack("a_total{track=\"x\",reason=\"r\"}")).isEqualTo("a_total{reason=\"r\"}");
        assertThat(RecorderMetrics.withoutTrack("a_total{reason=\"r\",track=\"x\"}")).isEqualTo("a_total{reason=\"r\"}");
        assertThat(RecorderMetrics.withoutTrack("a_total")).isEqualTo("a_total");
    }

    @Test
    void metricsHaveParleyJvmAndProcessSeries() throws Exception {
        RecorderMetrics metrics = new RecorderMetrics();
        metrics.inc(RecorderMetrics.SEGMENTS_UPLOADED, "track=\"p1_0\"", 2);
        metrics.inc(RecorderMetrics.SEGMENTS_UPLOADED, "track=\"p2_1\"", 3);
        metrics.inc(RecorderMetrics.LOST_PACKETS, "track=\"p1_0\",reason=\"queue_full\"", 1);
        try (AdminServer admin = new AdminServer("127.0.0.1", 0, metrics, () -> true, () -> null, why -> { }, "s3cret")) {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + admin.port() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            // track ids carry participant ids: summed over tracks, never a label
            assertThat(r.body()).contains("parley_recorder_segments_uploaded_total 5\n",
                            "parley_recorder_lost_packets_total{reason=\"queue_full\"} 1\n").doesNotContain("track=")
                    .containsPattern("(?m)^jvm_memory_used_bytes\\{").containsPattern("(?m)^jvm_threads_current ")
                    .containsPattern("(?m)^process_cpu_seconds_total ").containsPattern("(?m)^process_start_time_seconds ");
        }
    }
}
