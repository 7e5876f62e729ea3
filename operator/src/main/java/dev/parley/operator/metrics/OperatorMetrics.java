package dev.parley.operator.metrics;

import dev.parley.podmetrics.JvmProcessMetrics;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.DoubleAdder;

/**
 * The operator's Prometheus metrics (text exposition format 0.0.4, served at {@code /metrics} by the health
 * server): reconciles and their failures per resource kind (fed by JOSDK through its {@link Metrics} hook), scale
 * decisions, drains in progress and finished, registry outages, and per-pool availability. Hand-written (a handful
 * of labelled counters and gauges), followed by the JVM and process series of client_java's JVM instrumentation.
 */
public final class OperatorMetrics implements Metrics {
    static final String RECONCILES = "parley_operator_reconciles_total";
    static final String RECONCILE_ERRORS = "parley_operator_reconcile_errors_total";
    static final String SCALE_DECISIONS = "parley_operator_scale_decisions_total";
    static final String DRAINS_IN_PROGRESS = "parley_operator_drains_in_progress";
    static final String DRAINS_FINISHED = "parley_operator_drains_finished_total";
    static final String REGISTRY_UNAVAILABLE = "parley_operator_registry_unavailable_total";
    static final String POOL_PODS = "parley_operator_pool_pods";
    static final String POOL_AVAILABILITY = "parley_operator_pool_availability";

    private static final Map<String, String[]> META = Map.of(
            RECONCILES, new String[]{"counter", "reconciles finished, by resource kind and result"},
            RECONCILE_ERRORS, new String[]{"counter", "reconciles that threw, by resource kind and exception"},
            SCALE_DECISIONS, new String[]{"counter", "autoscaler target changes, by pool and direction"},
            DRAINS_IN_PROGRESS, new String[]{"gauge", "pods of a pool currently in a drain phase"},
            DRAINS_FINISHED, new String[]{"counter", "drains that ended (emptied, timeout, interrupted), by pool"},
            REGISTRY_UNAVAILABLE, new String[]{"counter", "reconciles that could not read the etcd registry"},
            POOL_PODS, new String[]{"gauge", "pods of a pool (serving, not draining)"},
            POOL_AVAILABILITY, new String[]{"gauge", "share of reconciles in which the pool had at least minReplicas ready"});

    private final JvmProcessMetrics jvm = new JvmProcessMetrics();
    /** metric name → rendered label set → value. */
    private final Map<String, SortedMap<String, DoubleAdder>> counters = new ConcurrentHashMap<>();
    private final Map<String, SortedMap<String, Double>> gauges = new ConcurrentHashMap<>();

    // ---- JOSDK hook ----

    @Override
    public void finishedReconciliation(HasMetadata resource, Map<String, Object> metadata) {
        inc(RECONCILES, labels("kind", resource.getKind(), "result", "success"));
    }

    @Override
    public void failedReconciliation(HasMetadata resource, Exception exception, Map<String, Object> metadata) {
        inc(RECONCILES, labels("kind", resource.getKind(), "result", "error"));
        inc(RECONCILE_ERRORS, labels("kind", resource.getKind(), "exception", exception.getClass().getSimpleName()));
    }

    // ---- pool events (PoolReconcile) ----

    public void scaleDecision(String kind, String namespace, String pool, String direction) {
        inc(SCALE_DECISIONS, labels("kind", kind, "namespace", namespace, "pool", pool, "direction", direction));
    }

    public void drainFinished(String kind, String namespace, String pool, String outcome) {
        inc(DRAINS_FINISHED, labels("kind", kind, "namespace", namespace, "pool", pool, "outcome", outcome));
    }

    public void registryUnavailable(String kind, String namespace, String pool) {
        inc(REGISTRY_UNAVAILABLE, labels("kind", kind, "namespace", namespace, "pool", pool));
    }

    public void poolObserved(String kind, String namespace, String pool, int serving, int draining, double availability) {
        String l = labels("kind", kind, "namespace", namespace, "pool", pool);
        set(DRAINS_IN_PROGRESS, l, draining);
        set(POOL_PODS, l, serving);
        set(POOL_AVAILABILITY, l, availability);
    }

    /** The current value of a series (tests); 0 when absent. */
    public double value(String name, String renderedLabels) {
        SortedMap<String, DoubleAdder> c = counters.get(name);
        if (c != null && c.containsKey(renderedLabels)) {
            return c.get(renderedLabels).sum();
        }
        SortedMap<String, Double> g = gauges.get(name);
        return g == null ? 0 : g.getOrDefault(renderedLabels, 0.0);
    }

    /** Prometheus text format. */
    public String render() {
        StringBuilder sb = new StringBuilder(1024);
        new ConcurrentSkipListMap<>(META).forEach((name, meta) -> {
            sb.append("# HELP ").append(name).append(' ').append(meta[1]).append('\n');
            sb.append("# TYPE ").append(name).append(' ').append(meta[0]).append('\n');
            SortedMap<String, DoubleAdder> c = counters.get(name);
            if (c != null) {
                c.forEach((l, v) -> sb.append(name).append(l).append(' ').append(format(v.sum())).append('\n'));
            }
            SortedMap<String, Double> g = gauges.get(name);
            if (g != null) {
                g.forEach((l, v) -> sb.append(name).append(l).append(' ').append(format(v)).append('\n'));
            }
        });
        jvm.appendTo(sb);
        return sb.toString();
    }

    private void inc(String name, String labels) {
        counters.computeIfAbsent(name, k -> new ConcurrentSkipListMap<>()).computeIfAbsent(labels, k -> new DoubleAdder()).add(1);
    }

    private void set(String name, String labels, double v) {
        gauges.computeIfAbsent(name, k -> new ConcurrentSkipListMap<>()).put(labels, v);
    }

    /** {@code {k1="v1",k2="v2"}} with values escaped as the exposition format requires. */
    public static String labels(String... kv) {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i + 1 < kv.length; i += 2) {
            if (i > 0) {
                sb.append(',');
            }
            String v = kv[i + 1] == null ? "" : kv[i + 1];
            sb.append(kv[i]).append("=\"").append(v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")).append('"');
        }
        return sb.append('}').toString();
    }

    private static String format(double v) {
        return v == Math.rint(v) && !Double.isInfinite(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
