package dev.parley.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** charts/parley through the embedded Helm (helm-java): lint and template, as `helm lint` / `helm template`. */
final class HelmChart {
    static final Path CHART = Path.of("parley");

    private HelmChart() {
    }

    static LintResult lintStrict(Path chart) {
        KubeApiStandIn.get();
        return new Helm(chart).lint().strict().call();
    }

    /** Rendered manifests; throws IllegalStateException with Helm's message when rendering fails. */
    static String template(Path chart, String release, String namespace, List<Path> valuesFiles, Map<String, String> set) {
        KubeApiStandIn.get();
        TemplateCommand t = new Helm(chart).template().withName(release).withNamespace(namespace);
        for (Path f : valuesFiles) {
            t = t.withValuesFile(f);
        }
        for (var e : set.entrySet()) {
            t = t.set(e.getKey(), e.getValue());
        }
        return t.call();
    }

    static List<JsonNode> render(String release, String namespace, List<Path> valuesFiles, Map<String, String> set) {
        return Docs.parse(template(CHART, release, namespace, valuesFiles, set));
    }

    static List<JsonNode> render(Map<String, String> set) {
        return render("parley", "parley-system", List.of(), set);
    }

    /** The chart's crds/ files: Helm installs them verbatim, before the templates (helm template leaves them out). */
    static List<Path> crdFiles() {
        try (Stream<Path> s = Files.list(CHART.resolve("crds"))) {
            return s.sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A copy of the chart in dir, for tests that break one file of it. */
    static Path copyTo(Path dir) throws IOException {
        Path target = dir.resolve("parley");
        try (Stream<Path> s = Files.walk(CHART)) {
            for (Path p : s.toList()) {
                Path to = target.resolve(CHART.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(p, to);
                }
            }
        }
        return target;
    }
}
