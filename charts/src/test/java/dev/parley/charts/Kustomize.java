package dev.parley.charts;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/** manifests/ rendered with the real kubectl, as ManifestsRenderTest in the operator module does. */
final class Kustomize {
    static final Path MANIFESTS = Path.of("..", "manifests");

    private Kustomize() {
    }

    static List<JsonNode> render(String dir) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("/usr/bin/kubectl", "kustomize", MANIFESTS.resolve(dir).toString()).start();
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("kubectl kustomize " + dir + " failed: " + err);
        }
        return Docs.parse(new String(out, StandardCharsets.UTF_8));
    }
}
