package dev.parley.charts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.operator.OperatorConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The chart, with the values that mirror manifests/base (src/test/resources/mirror-base-values.yaml), gives the
 * objects of `kubectl kustomize manifests/base`: the same kind/namespace/name set and, object by object, the same
 * fields (images, env, ports, probes, RBAC rules, selectors, CRD specs, custom resources...). Only Helm's labels are
 * ignored, and the operator env the chart always sets where the base relies on the operator's defaults.
 */
class ChartDriftTest {
    static final Path MIRROR_VALUES = Path.of("src/test/resources/mirror-base-values.yaml");
    static Map<String, JsonNode> base;
    static Map<String, JsonNode> chart;

    @BeforeAll
    static void render() throws Exception {
        base = Docs.byKey(Kustomize.render("base"));
        List<JsonNode> chartDocs = new ArrayList<>(HelmChart.render("parley", "parley-system", List.of(MIRROR_VALUES), Map.of()));
        for (Path crd : HelmChart.crdFiles()) {
            chartDocs.addAll(Docs.parse(Files.readString(crd)));
        }
        chart = Docs.byKey(chartDocs);
        // kustomize's labels transformer also labels the CRDs; the chart's CRDs are byte copies of crds/ (ChartCrdsTest)
        for (var e : base.entrySet()) {
            if (e.getKey().startsWith("CustomResourceDefinition/")) {
                ObjectNode meta = (ObjectNode) e.getValue().get("metadata");
                if (meta.get("labels") instanceof ObjectNode labels) {
                    labels.remove("app.kubernetes.io/part-of");
                    if (labels.isEmpty()) {
                        meta.remove("labels");
                    }
                }
            }
        }
    }

    /**
     * Operator env the chart sets and the base does not, with the operator's default for each: setting a variable to
     * its default changes nothing. The defaults are read from the real OperatorConfig; the health port from the base's
     * own health containerPort (OperatorMain's default, which the base's probes rely on).
     */
    static Map<String, String> operatorDefaults() {
        OperatorConfig d = OperatorConfig.fromEnv(Map.of());
        JsonNode operator = base.get("Deployment/parley-system/parley-operator").at("/spec/template/spec/containers/0");
        Map<String, String> m = new LinkedHashMap<>();
        m.put("PARLEY_INTERNAL_SECRET_NAME", d.internalSecretName());
        m.put("PARLEY_TURN_SECRET_NAME", d.turnSecretName());
        m.put("PARLEY_TICKET_KEY_SECRET_NAME", d.ticketKeySecretName());
        m.put("PARLEY_LEADER_ELECTION", String.valueOf(d.leaderElection()));
        m.put("PARLEY_HEALTH_PORT", operator.at("/ports/0/containerPort").asText());
        return m;
    }

    @Test
    void sameObjects() {
        Set<String> onlyBase = new TreeSet<>(base.keySet());
        onlyBase.removeAll(chart.keySet());
        Set<String> onlyChart = new TreeSet<>(chart.keySet());
        onlyChart.removeAll(base.keySet());
        assertThat(onlyBase).as("objects of manifests/base the chart does not render").isEmpty();
        assertThat(onlyChart).as("objects the chart renders that manifests/base does not have").isEmpty();
        assertThat(base).hasSizeGreaterThan(20);
    }

    @Test
    void sameFieldsInEveryObject() {
        ObjectDrift drift = new ObjectDrift(operatorDefaults());
        for (var e : base.entrySet()) {
            JsonNode c = chart.get(e.getKey());
            if (c != null) {
                drift.compare(e.getKey(), e.getValue(), c);
            }
        }
        assertThat(drift.diffs())
                .withFailMessage("chart vs manifests/base, field by field:%n  %s", String.join("\n  ", drift.diffs()))
                .isEmpty();
    }

    @Test
    void theOperatorDefaultsTheChartSpellsOutAreTheOperatorsOwn() {
        // the chart says these out loud; the base leaves them to the operator. Both mean the same only while
        // the operator's defaults are these (and the chart's secret names are the default names).
        assertThat(operatorDefaults()).containsEntry("PARLEY_INTERNAL_SECRET_NAME", "parley-internal")
                .containsEntry("PARLEY_TURN_SECRET_NAME", "parley-turn")
                .containsEntry("PARLEY_TICKET_KEY_SECRET_NAME", "parley-ticket-key")
                .containsEntry("PARLEY_LEADER_ELECTION", "true")
                .containsEntry("PARLEY_HEALTH_PORT", "8080");
    }
}
