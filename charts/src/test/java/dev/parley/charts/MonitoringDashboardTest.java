package dev.parley.charts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.testsupport.metrics.ExportedSeries;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * manifests/monitoring's Grafana dashboard and scrape objects: the JSON parses, every panel queries something, and
 * every series a query names is one the pods export (docs/observability.md's table, which the pods' scrape tests
 * hold them to). The monitoring kustomization stays out of manifests/base.
 */
class MonitoringDashboardTest {
    static final Path DASHBOARD = MonitoringRulesTest.MONITORING.resolve("grafana-dashboard.json");

    @Test
    void everyPanelQueriesExportedSeries() throws Exception {
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        assertThat(dashboard.path("title").asText()).isEqualTo("Parley");
        assertThat(dashboard.path("uid").asText()).isNotBlank();
        Set<String> used = new TreeSet<>();
        int queried = 0;
        for (JsonNode panel : dashboard.get("panels")) {
            if (panel.path("type").asText().equals("row")) {
                continue;
            }
            assertThat(panel.path("targets")).as("queries of panel %s", panel.path("title")).isNotEmpty();
            for (JsonNode target : panel.get("targets")) {
                String expr = target.path("expr").asText();
                assertThat(expr).as("panel %s", panel.path("title")).isNotBlank();
                Set<String> series = MonitoringRulesTest.series(expr);
                assertThat(series).as("series in %s", expr).isNotEmpty();
                used.addAll(series);
            }
            queried++;
        }
        assertThat(queried).isGreaterThanOrEqualTo(20);
        assertThat(used).allSatisfy(s -> assertThat(ExportedSeries.isListed(s)).as("%s in docs/observability.md", s).isTrue());
        // seed 000's headline numbers are on it
        assertThat(used).contains("parley_request_latency_seconds", "parley_join_to_media_ready_seconds",
                "parley_authorization_enforcement_lag_seconds", "parley_outbox_oldest_unpublished_age_seconds",
                "parley_sfu_packet_queue_age_seconds", "parley_sfu_ingress_bytes_total", "jvm_memory_used_bytes");
    }

    @Test
    void theKustomizationShipsScrapeObjectsRulesAndTheDashboard() throws Exception {
        List<JsonNode> objects = Kustomize.render("monitoring");
        assertThat(objects.stream().map(Docs::key)).containsExactlyInAnyOrder(
                "ConfigMap/parley-system/parley-grafana-dashboard", "PodMonitor/parley-system/parley-media",
                "PodMonitor/parley-system/parley-operator", "PodMonitor/parley-system/parley-recorder",
                "PrometheusRule/parley-system/parley", "ServiceMonitor/parley-system/parley-controller");
        assertThat(objects).allSatisfy(o -> assertThat(o.at("/metadata/labels/app.kubernetes.io~1part-of").asText())
                .isEqualTo("parley"));
        JsonNode configMap = Docs.named(objects, "ConfigMap", "parley-grafana-dashboard");
        assertThat(configMap.at("/metadata/labels/grafana_dashboard").asText()).isEqualTo("1");
        assertThat(configMap.at("/data/grafana-dashboard.json").asText()).isEqualTo(Files.readString(DASHBOARD));
        // every scrape object reads /metrics
        for (JsonNode o : objects) {
            for (JsonNode ep : o.at("/spec/endpoints").isMissingNode() ? o.at("/spec/podMetricsEndpoints") : o.at("/spec/endpoints")) {
                assertThat(ep.path("path").asText()).as(Docs.key(o)).isEqualTo("/metrics");
            }
        }
    }

    @Test
    void baseInstallsDoNotNeedThePrometheusOperator() throws Exception {
        for (String dir : List.of("base", "overlays/dev", "overlays/production")) {
            assertThat(Kustomize.render(dir)).as(dir).noneSatisfy(o ->
                    assertThat(o.path("apiVersion").asText()).startsWith("monitoring.coreos.com/"));
        }
    }
}
