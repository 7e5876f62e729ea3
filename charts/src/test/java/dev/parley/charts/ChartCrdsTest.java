package dev.parley.charts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The chart's crds/ are byte-for-byte copies of the generated CRDs in crds/ (CrdsUpToDateTest keeps those in step
 * with the Java types). Refresh after regenerating: cp crds/*.yml charts/parley/crds/
 */
class ChartCrdsTest {
    static final Path GENERATED = Path.of("..", "crds");

    static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yml")).sorted().toList();
        }
    }

    @Test
    void sameFiles() throws IOException {
        assertThat(names(HelmChart.CHART.resolve("crds"))).as("charts/parley/crds vs crds/")
                .containsExactlyElementsOf(names(GENERATED))
                .hasSize(3);
        // every CRD of the kustomization is there (nothing else lives in crds/ but the kustomization itself)
        String kustomization = Files.readString(GENERATED.resolve("kustomization.yaml"));
        for (String n : names(GENERATED)) {
            assertThat(kustomization).contains("- " + n);
        }
    }

    @Test
    void byteForByteCopies() throws IOException {
        for (String n : names(GENERATED)) {
            byte[] generated = Files.readAllBytes(GENERATED.resolve(n));
            byte[] copy = Files.readAllBytes(HelmChart.CHART.resolve("crds").resolve(n));
            assertThat(copy).as("charts/parley/crds/%s differs from crds/%s: cp crds/*.yml charts/parley/crds/", n, n)
                    .isEqualTo(generated);
        }
    }

    @Test
    void eachFileIsOneCustomResourceDefinition() throws IOException {
        for (String n : names(HelmChart.CHART.resolve("crds"))) {
            List<JsonNode> docs = Docs.parse(Files.readString(HelmChart.CHART.resolve("crds").resolve(n)));
            assertThat(docs).as(n).singleElement().satisfies(d -> {
                assertThat(d.path("kind").asText()).isEqualTo("CustomResourceDefinition");
                assertThat(n).startsWith(d.at("/metadata/name").asText());
            });
        }
    }
}
