package dev.parley.e2e.web;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * One pod jar ({@code java -jar}) started as a real process with its configuration in environment
 * variables (docs/configuration.md). Output goes to {@code target/platform-logs/<name>.log}; the process
 * can be killed with SIGKILL to simulate a crash.
 */
final class PodProcess implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
    private final String name;
    private final Process process;
    private final Path log;

    private PodProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    static PodProcess start(String name, Path jar, Map<String, String> env) throws IOException {
        Path logs = Path.of("target", "platform-logs");
        Files.createDirectories(logs);
        Path log = logs.resolve(name + ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx384m", "-XX:+UseSerialGC", "-jar", jar.toAbsolutePath().toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
        pb.environment().putAll(env);
        return new PodProcess(name, pb.start(), log);
    }

    /** Waits until {@code url} answers 200, failing early (with the log tail) if the process died. */
    void awaitReady(String url, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + ":\n" + tail());
            }
            try {
                HttpResponse<Void> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(1)).GET().build(),
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

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** SIGKILL: the pod disappears without any goodbye, as in a crash. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    String tail() {
        try {
            String all = Files.readString(log);
            return all.length() > 4000 ? all.substring(all.length() - 4000) : all;
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
