package dev.parley.podmetrics;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The standard {@code jvm_*} and {@code process_*} series (client_java's JVM instrumentation) in Prometheus text
 * format, appended to the pod's own series on {@code /metrics}. Read at scrape time only, never on a hot path.
 */
public final class JvmProcessMetrics {
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

    public JvmProcessMetrics() {
        JvmMetrics.builder().register(registry);
    }

    /** Appends the JVM and process series to {@code out}. */
    public void appendTo(StringBuilder out) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream(16 * 1024);
        try {
            writer.write(buf, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not throw
        }
        out.append(buf.toString(StandardCharsets.UTF_8));
    }
}
