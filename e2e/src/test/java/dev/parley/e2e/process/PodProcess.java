package dev.parley.e2e.process;

import dev.parley.testsupport.process.ChildProcesses;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One pod jar ({@code java -jar}) started as a real process with its configuration in environment
 * variables (docs/configuration.md). Output goes to {@code <logDir>/<name>.log} (default
 * {@code target/platform-logs}); the process can be killed with SIGKILL to simulate a crash.
 */
public final class PodProcess implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
    private final String name;
    private final Process process;
    private final Path log;

    private PodProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    public static PodProcess start(String name, Path jar, Map<String, String> env) throws IOException {
        return start(name, jar, env, Path.of("target", "platform-logs"));
    }

    public static PodProcess start(String name, Path jar, Map<String, String> env, Path logDir) throws IOException {
        Files.createDirectories(logDir);
        Path log = logDir.resolve(name + ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx384m", "-XX:+UseSerialGC", "-jar", jar.toAbsolutePath().toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
        pb.environment().putAll(env);
        return new PodProcess(name, pb.start(), log);
    }

    /** Waits until {@code url} answers 200, failing early (with the log tail) if the process died. */
    public void awaitReady(String url, Duration timeout) throws Exception {
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

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** SIGKILL: the pod disappears without any goodbye, as in a crash. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** The exit code, or -1 if still running after {@code seconds}. */
    public int waitFor(long seconds) throws InterruptedException {
        return process.waitFor(seconds, TimeUnit.SECONDS) ? process.exitValue() : -1;
    }

    public String tail() {
        try {
            String all = Files.readString(log);
            return all.length() > 4000 ? all.substring(all.length() - 4000) : all;
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() {
        ChildProcesses.stop(process, Duration.ofSeconds(5));
    }
}
