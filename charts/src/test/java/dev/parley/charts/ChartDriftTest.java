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
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The chart, with values that mirror a kustomization (src/test/resources/mirror-*-values.yaml), gives the objects of
 * `kubectl kustomize` of it: the same kind/namespace/name set and, object by object, the same fields (images, env,
 * ports, probes, RBAC rules, selectors, volumes, CRD specs, custom resources...). Only Helm's labels are ignored, and
 * the operator env the chart always sets where the kustomization relies on the operator's defaults.
 */
class ChartDriftTest {
    record Case(String kustomization, Path values, Set<String> notInTheChart) {
        @Override
        public String toString() {
            return "manifests/" + kustomization;
        }
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(new Case("base", Path.of("src/test/resources/mirror-base-values.yaml"), Set.of())),
                // CloudNativePG's Cluster: the database comes from outside the chart (postgresql.external)
                Arguments.of(new Case("overlays/production", Path.of("src/test/resources/mirror-production-values.yaml"),
                        Set.of("Cluster/parley-system/parley-db"))));
    }

    static Map<String, JsonNode> kustomize(Case c) throws Exception {
        Map<String, JsonNode> objects = Docs.byKey(Kustomize.render(c.kustomization()));
        c.notInTheChart().forEach(k -> assertThat(objects.remove(k)).as("%s in %s", k, c).isNotNull());
        // kustomize's labels transformer also labels the CRDs; the chart's CRDs are byte copies of crds/ (ChartCrdsTest)
        for (var e : objects.entrySet()) {
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
        return objects;
    }

    static Map<String, JsonNode> chart(Case c) throws Exception {
        List<JsonNode> docs = new ArrayList<>(HelmChart.render("parley", "parley-system", List.of(c.values()), Map.of()));
        for (Path crd : HelmChart.crdFiles()) {
            docs.addAll(Docs.parse(Files.readString(crd)));
        }
        return Docs.byKey(docs);
    }

    /**
     * Operator env the chart sets and the kustomizations do not, with the operator's default for each: setting a
     * variable to its default changes nothing. The defaults come from the real OperatorConfig; the health port from
     * the kustomization's own health containerPort (OperatorMain's default, which its probes rely on).
     */
    static Map<String, String> operatorDefaults(Map<String, JsonNode> kustomized) {
        OperatorConfig d = OperatorConfig.fromEnv(Map.of());
        JsonNode operator = kustomized.get("Deployment/parley-system/parley-operator").at("/spec/template/spec/containers/0");
        Map<String, String> m = new LinkedHashMap<>();
        m.put("PARLEY_INTERNAL_SECRET_NAME", d.pods().internalSecretName());
        m.put("PARLEY_TURN_SECRET_NAME", d.pods().turnSecretName());
        m.put("PARLEY_TICKET_KEY_SECRET_NAME", d.pods().ticketKeySecretName());
        m.put("PARLEY_LEADER_ELECTION", String.valueOf(d.leaderElection()));
        m.put("PARLEY_HEALTH_PORT", operator.at("/ports/0/containerPort").asText());
        return m;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void sameObjects(Case c) throws Exception {
        Map<String, JsonNode> kustomized = kustomize(c);
        Map<String, JsonNode> chart = chart(c);
        Set<String> onlyKustomize = new TreeSet<>(kustomized.keySet());
        onlyKustomize.removeAll(chart.keySet());
        Set<String> onlyChart = new TreeSet<>(chart.keySet());
        onlyChart.removeAll(kustomized.keySet());
        assertThat(onlyKustomize).as("objects of %s the chart does not render", c).isEmpty();
        assertThat(onlyChart).as("objects the chart renders that %s does not have", c).isEmpty();
        assertThat(kustomized.keySet()).as("objects of %s", c).hasSizeGreaterThanOrEqualTo(20);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void sameFieldsInEveryObject(Case c) throws Exception {
        Map<String, JsonNode> kustomized = kustomize(c);
        Map<String, JsonNode> chart = chart(c);
        ObjectDrift drift = new ObjectDrift(operatorDefaults(kustomized));
        for (var e : kustomized.entrySet()) {
            JsonNode o = chart.get(e.getKey());
            if (o != null) {
                drift.compare(e.getKey(), e.getValue(), o);
            }
        }
        assertThat(drift.diffs())
                .withFailMessage("chart vs %s, field by field (\"base\" is the kustomize side):%n  %s", c, String.join("\n  ", drift.diffs()))
                .isEmpty();
    }

    @Test
    void theOperatorDefaultsTheChartSpellsOutAreTheOperatorsOwn() throws Exception {
        // the chart says these out loud; the base leaves them to the operator. Both mean the same only while
        // the operator's defaults are these (and the chart's secret names are the default names).
        assertThat(operatorDefaults(kustomize((Case) cases().findFirst().orElseThrow().get()[0])))
                .containsEntry("PARLEY_INTERNAL_SECRET_NAME", "parley-internal")
                .containsEntry("PARLEY_TURN_SECRET_NAME", "parley-turn")
                .containsEntry("PARLEY_TICKET_KEY_SECRET_NAME", "parley-ticket-key")
                .containsEntry("PARLEY_LEADER_ELECTION", "true")
                .containsEntry("PARLEY_HEALTH_PORT", "8080");
    }
}
