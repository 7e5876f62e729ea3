package dev.parley.operator.crd;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.crdv2.generator.CRDGenerator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Regenerates the CRD YAML from the Java types into target/ and fails when the committed crds/ differ.
 * To refresh the committed files: {@code -Dparley.updateCrds=true}.
 */
class CrdsUpToDateTest {
    static final Path COMMITTED = Path.of("..", "crds");

    static Path generate(Path dir) throws IOException {
        Files.createDirectories(dir);
        try (Stream<Path> old = Files.list(dir)) {
            for (Path p : old.toList()) {
                Files.delete(p);
            }
        }
        int n = new CRDGenerator()
                .customResourceClasses(MediaRegion.class, SfuPool.class, RecordingJob.class)
                .forCRDVersions("v1")
                .withParallelGenerationEnabled(false)
                .inOutputDir(dir.toFile())
                .generate();
        assertThat(n).isEqualTo(3);
        return dir;
    }

    @Test
    void committedCrdsMatchTheJavaTypes() throws IOException {
        Path fresh = generate(Path.of("target", "generated-crds"));
        List<Path> generated;
        try (Stream<Path> s = Files.list(fresh)) {
            generated = s.sorted().toList();
        }
        assertThat(generated).hasSize(3);
        if (Boolean.getBoolean("parley.updateCrds")) {
            Files.createDirectories(COMMITTED);
            for (Path p : generated) {
                Files.copy(p, COMMITTED.resolve(p.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        for (Path p : generated) {
            Path committed = COMMITTED.resolve(p.getFileName());
            assertThat(committed)
                    .as("crds/%s is missing or stale: run the operator-api tests with -Dparley.updateCrds=true", p.getFileName())
                    .exists();
            assertThat(Files.readString(committed))
                    .as("crds/%s is stale: run the operator-api tests with -Dparley.updateCrds=true", p.getFileName())
                    .isEqualTo(Files.readString(p));
        }
        try (Stream<Path> s = Files.list(COMMITTED)) {
            assertThat(s.filter(p -> p.toString().endsWith(".yml")).count())
                    .as("crds/ holds exactly the generated CRDs").isEqualTo(generated.size());
        }
    }
}
