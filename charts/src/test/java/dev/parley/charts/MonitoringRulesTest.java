package dev.parley.charts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.testsupport.metrics.ExportedSeries;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BinaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * manifests/monitoring's alerts with the real promtool (Debian package {@code prometheus}): the PrometheusRule's
 * groups pass {@code promtool check rules}, and {@code promtool test rules} with tests/parley-rules.test.yaml sees
 * every alert fire and a healthy system stay quiet. promtool missing is a failure, not a skip: CI installs it.
 */
class MonitoringRulesTest {
    static final Path PROMTOOL = Path.of("/usr/bin/promtool");
    static final Path MONITORING = Kustomize.MANIFESTS.resolve("monitoring");
    /** A metric name in PromQL: the series the rules and the dashboard read. */
    static final Pattern SERIES = Pattern.compile("(?<![\\w\"])((?:parley|jvm|process)_[a-z0-9_]+)");

    record Run(int exit, String output) {
    }

    static Run promtool(Path dir, String... args) throws IOException, InterruptedException {
        assertThat(PROMTOOL).as("promtool: apt-get install prometheus (./parley test does)").isExecutable();
        List<String> cmd = new ArrayList<>(List.of(PROMTOOL.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Run(p.waitFor(), out);
    }

    /** The PrometheusRule as applied (kustomized), its spec written where the promtool fixture expects it. */
    static JsonNode writeSpec(Path dir) throws Exception {
        return writeSpec(dir, (alert, expr) -> expr);
    }

    /** Same, with each rule's expression passed through {@code edit(alert, expr)} first. */
    static JsonNode writeSpec(Path dir, BinaryOperator<String> edit) throws Exception {
        JsonNode spec = Docs.named(Kustomize.render("monitoring"), "PrometheusRule", "parley").get("spec");
        spec.get("groups").forEach(g -> g.get("rules").forEach(r -> ((ObjectNode) r).put("expr",
                edit.apply(r.get("alert").asText(), r.get("expr").asText()))));
        Files.writeString(dir.resolve("parley-rules.spec.yaml"), Docs.YAML.writeValueAsString(spec));
        Files.copy(MONITORING.resolve("tests/parley-rules.test.yaml"), dir.resolve("parley-rules.test.yaml"));
        return spec;
    }

    @Test
    void rulesPassPromtoolCheck(@TempDir Path dir) throws Exception {
        writeSpec(dir);
        Run check = promtool(dir, "check", "rules", "parley-rules.spec.yaml");
        assertThat(check.exit()).as(check.output()).isZero();
        assertThat(check.output()).contains("SUCCESS");
        // every *rules*.yaml in manifests/monitoring is a PrometheusRule the kustomization applies
        try (DirectoryStream<Path> files = Files.newDirectoryStream(MONITORING, "*rules*.yaml")) {
            for (Path f : files) {
                assertThat(Files.readString(f)).as(f.toString()).contains("kind: PrometheusRule");
                assertThat(Files.readString(MONITORING.resolve("kustomization.yaml"))).contains(f.getFileName().toString());
            }
        }
    }

    @Test
    void everyAlertIsSeenToFireAndAQuietSystemStaysQuiet(@TempDir Path dir) throws Exception {
        JsonNode spec = writeSpec(dir);
        Run test = promtool(dir, "test", "rules", "parley-rules.test.yaml");
        assertThat(test.exit()).as(test.output()).isZero();
        assertThat(test.output()).contains("SUCCESS");

        Set<String> alerts = new TreeSet<>();
        spec.get("groups").forEach(g -> g.get("rules").forEach(r -> alerts.add(r.get("alert").asText())));
        assertThat(alerts).contains("ParleyOutboxBacklog", "ParleyAuthorizationEnforcementLagHigh", "ParleySfuOverloaded",
                "ParleyControllerLeaseLost", "ParleyTurnAllocationFailures", "ParleyRecordingSegmentsDropped");
        Set<String> firing = new TreeSet<>();
        JsonNode fixture = Docs.YAML.readTree(MONITORING.resolve("tests/parley-rules.test.yaml").toFile());
        fixture.get("tests").forEach(t -> t.get("alert_rule_test").forEach(a -> {
            if (!a.get("exp_alerts").isEmpty()) {
                firing.add(a.get("alertname").asText());
            }
        }));
        assertThat(firing).as("alerts the fixture sees firing").isEqualTo(alerts);
    }

    @Test
    void theFixtureCatchesAThresholdThatDrifted(@TempDir Path dir) throws Exception {
        writeSpec(dir, (alert, expr) -> alert.equals("ParleyAuthorizationEnforcementLagHigh") ? expr.replace("> 1", "> 2") : expr);
        assertThat(Files.readString(dir.resolve("parley-rules.spec.yaml"))).contains("> 2");
        Run test = promtool(dir, "test", "rules", "parley-rules.test.yaml");
        assertThat(test.exit()).as(test.output()).isNotZero();
        assertThat(test.output()).contains("ParleyAuthorizationEnforcementLagHigh");
    }

    @Test
    void everySeriesARuleReadsIsExported() throws Exception {
        JsonNode spec = Docs.named(Kustomize.render("monitoring"), "PrometheusRule", "parley").get("spec");
        Set<String> used = new TreeSet<>();
        spec.get("groups").forEach(g -> g.get("rules").forEach(r -> used.addAll(series(r.get("expr").asText()))));
        assertThat(used).hasSizeGreaterThanOrEqualTo(10);
        assertThat(used).allSatisfy(s -> assertThat(ExportedSeries.isListed(s)).as("%s in docs/observability.md", s).isTrue());
    }

    static Set<String> series(String promql) {
        Set<String> names = new TreeSet<>();
        Matcher m = SERIES.matcher(promql);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }
}
