package dev.parley.controller.sdk;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs node and npm for the SDK tests (installed by {@code ./parley test}: apt-get install nodejs npm). */
final class NodeTool {
    /** The SDK's sources: the controller serves them at /sdk/. */
    static final Path SDK = Path.of("src/main/resources/public/sdk").toAbsolutePath();

    record Run(int exit, String output) {
    }

    private NodeTool() {
    }

    static Run run(Path dir, Map<String, String> env, long timeoutSeconds, String... command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Path log = Files.createTempFile("node-tool", ".log");
        pb.redirectOutput(log.toFile());
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new IllegalStateException(command[0] + " not found: install it with apt-get install nodejs npm "
                    + "(./parley test does this when run as root)", e);
        }
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " took more than " + timeoutSeconds + " s:\n"
                    + Files.readString(log, StandardCharsets.UTF_8));
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        Files.deleteIfExists(log);
        return new Run(p.exitValue(), out);
    }

    /**
     * {@code npm ci} of the SDK's package.json + package-lock.json into {@code target/sdk-tsc} (never into
     * the sources), once per JVM; the download cache is npm's own (~/.npm). Returns the tsc entry point.
     */
    static synchronized Path installedTsc() throws Exception {
        Path dir = Path.of("target/sdk-tsc").toAbsolutePath();
        Path tsc = dir.resolve("node_modules/typescript/bin/tsc");
        Path lock = dir.resolve("package-lock.json");
        if (Files.isRegularFile(tsc) && Files.isRegularFile(lock)
                && Files.mismatch(lock, SDK.resolve("package-lock.json")) == -1) {
            return tsc;
        }
        Files.createDirectories(dir);
        Files.copy(SDK.resolve("package.json"), dir.resolve("package.json"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.copy(SDK.resolve("package-lock.json"), lock, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Run ci = run(dir, Map.of(), 300, "npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts");
        if (ci.exit() != 0 || !Files.isRegularFile(tsc)) {
            throw new IllegalStateException("npm ci failed (exit " + ci.exit() + "):\n" + ci.output());
        }
        return tsc;
    }

    static Run tsc(Path project, Path outDir) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("node", installedTsc().toString(), "-p", project.toString(), "--pretty", "false"));
        if (outDir != null) {
            cmd.addAll(List.of("--outDir", outDir.toString()));
        }
        return run(project.getParent(), Map.of(), 300, cmd.toArray(String[]::new));
    }
}
