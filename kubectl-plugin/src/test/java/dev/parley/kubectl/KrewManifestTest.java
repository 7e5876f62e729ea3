package dev.parley.kubectl;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * krew/parley.yaml is what {@code kubectl krew install --manifest} reads: the files it names must be exactly what
 * kubectl-plugin/krew-release.sh puts in the archive, and the checksum must be a real sha256 written by that script.
 */
class KrewManifestTest {
    @Test
    void manifestMatchesTheReleaseArchiveLayout() throws Exception {
        JsonNode m = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(Path.of("..", "krew", "parley.yaml")));
        assertThat(m.path("kind").asText()).isEqualTo("Plugin");
        assertThat(m.path("metadata").path("name").asText()).isEqualTo("parley");
        JsonNode platform = m.path("spec").path("platforms").get(0);
        String version = m.path("spec").path("version").asText();
        assertThat(version).matches("v\\d+\\.\\d+\\.\\d+");
        assertThat(platform.path("uri").asText()).endsWith("/" + version + "/kubectl-parley-" + version.substring(1) + ".tar.gz");
        assertThat(platform.path("sha256").asText()).matches("[0-9a-f]{64}").isNotEqualTo("0".repeat(64));
        assertThat(platform.path("bin").asText()).isEqualTo("kubectl-parley");
        List<String> files = new ArrayList<>();
        platform.path("files").forEach(f -> files.add(f.path("from").asText()));
        assertThat(files).containsExactly("kubectl-parley", "kubectl-parley.jar");
        String script = Files.readString(Path.of("krew-release.sh"));
        assertThat(script).contains("kubectl-parley kubectl-parley.jar | gzip -n");
        assertThat(Files.isExecutable(Path.of("kubectl-parley"))).isTrue();
    }
}
