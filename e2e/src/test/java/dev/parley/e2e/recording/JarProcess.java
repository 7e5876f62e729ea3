package dev.parley.e2e.recording;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A pod's fat jar as a real process, configured by environment variables, output in a log file. */
final class JarProcess implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
    private final String name;
    private final Process process;
    private final Path log;

    private JarProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    static JarProcess start(String name, Path jar, Map<String, String> env, Path logDir) throws IOException {
        Files.createDirectories(logDir);
        Path log = logDir.resolve(name + ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(List.of(java, "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-jar", jar.toAbsolutePath().toString())).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        return new JarProcess(name, pb.start(), log);
    }

    /** Waits until {@code url} answers 200; fails early with the log tail if the process died. */
    void awaitReady(String url, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + ":\n" + tail());
            }
            try {
                var r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).GET().build(),
                        HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(name + " not ready at " + url + " within " + timeout + ":\n" + tail());
    }

    /** The exit code, or -1 if still running after {@code seconds}. */
    int waitFor(long seconds) throws InterruptedException {
        return process.waitFor(seconds, TimeUnit.SECONDS) ? process.exitValue() : -1;
    }

    String tail() {
        try {
            String all = Files.readString(log);
            return all.length() > 6000 ? all.substring(all.length() - 6000) : all;
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
