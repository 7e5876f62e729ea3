package dev.parley.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.operator.crd.SfuPool;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import org.junit.jupiter.api.Test;

class OperatorMetricsTest {
    @Test
    void rendersCountersAndGaugesInThePrometheusTextFormat() {
        OperatorMetrics m = new OperatorMetrics();
        SfuPool pool = new SfuPool();
        pool.setMetadata(new ObjectMetaBuilder().withName("p").withNamespace("n").build());
        m.finishedReconciliation(pool, java.util.Map.of());
        m.finishedReconciliation(pool, java.util.Map.of());
        m.failedReconciliation(pool, new IllegalStateException("x"), java.util.Map.of());
        m.scaleDecision("SFU", "n", "p", "UP");
        m.poolObserved("SFU", "n", "p", 3, 1, 0.5);
        m.drainFinished("SFU", "n", "p", "emptied");
        String text = m.render();
        assertThat(text).contains("# TYPE parley_operator_reconciles_total counter\n")
                .contains("parley_operator_reconciles_total{kind=\"SfuPool\",result=\"success\"} 2\n")
                .contains("parley_operator_reconciles_total{kind=\"SfuPool\",result=\"error\"} 1\n")
                .contains("parley_operator_reconcile_errors_total{kind=\"SfuPool\",exception=\"IllegalStateException\"} 1\n")
                .contains("parley_operator_scale_decisions_total{kind=\"SFU\",namespace=\"n\",pool=\"p\",direction=\"UP\"} 1\n")
                .contains("# TYPE parley_operator_drains_in_progress gauge\n")
                .contains("parley_operator_drains_in_progress{kind=\"SFU\",namespace=\"n\",pool=\"p\"} 1\n")
                .contains("parley_operator_pool_availability{kind=\"SFU\",namespace=\"n\",pool=\"p\"} 0.5\n")
                .contains("parley_operator_drains_finished_total{kind=\"SFU\",namespace=\"n\",pool=\"p\",outcome=\"emptied\"} 1\n");
        // every sample line of the operator's own is name{labels} value; the rest are the JVM and process series
        for (String line : text.split("\n")) {
            if (!line.startsWith("#") && !line.startsWith("jvm_") && !line.startsWith("process_")) {
                assertThat(line).matches("parley_operator_[a-z_]+\\{[^}]*\\} [0-9.]+");
            }
        }
    }

    @Test
    void labelValuesAreEscaped() {
        assertThat(OperatorMetrics.labels("pool", "a\"b\\c\nd")).isEqualTo("{pool=\"a\\\"b\\\\c\\nd\"}");
    }
}
