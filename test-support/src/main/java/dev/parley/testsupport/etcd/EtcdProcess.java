package dev.parley.testsupport.etcd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One real etcd member process on 127.0.0.1 with its own data directory. It can be stopped (SIGTERM),
 * killed (SIGKILL) and restarted on the same ports and data, which is what failover tests need.
 * Logs go to {@code <dataRoot>/<name>.log}.
 */
public final class EtcdProcess implements AutoCloseable {

    /** Every etcd this JVM started and has not closed yet: killed in a shutdown hook as a last resort. */
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "etcd-reaper"));
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

    private final Path binary;
    private final String name;
    private final int clientPort;
    private final int peerPort;
    private final String initialCluster;
    private final String clusterToken;
    private final Path dataDir;
    private final Path logFile;
    private Process process;

    /**
     * @param initialCluster the {@code --initial-cluster} value, e.g. {@code a=http://127.0.0.1:2380,...};
     *                       null for a single-member cluster
     */
    EtcdProcess(Path binary, Path dataRoot, String name, int clientPort, int peerPort, String initialCluster,
            String clusterToken) {
        this.binary = binary;
        this.name = name;
        this.clientPort = clientPort;
        this.peerPort = peerPort;
        this.initialCluster = initialCluster != null ? initialCluster : name + "=" + peerUrl();
        this.clusterToken = clusterToken;
        this.dataDir = dataRoot.resolve(name + ".etcd");
        this.logFile = dataRoot.resolve(name + ".log");
    }

    /** Starts the process (without waiting for health); fails if it is already running. */
    public synchronized void start() {
        if (isRunning()) {
            throw new IllegalStateException("etcd " + name + " is already running");
        }
        List<String> cmd = new ArrayList<>(List.of(
                binary.toString(),
                "--name", name,
                "--data-dir", dataDir.toString(),
                "--listen-client-urls", clientUrl(),
                "--advertise-client-urls", clientUrl(),
                "--listen-peer-urls", peerUrl(),
                "--initial-advertise-peer-urls", peerUrl(),
                "--initial-cluster", initialCluster,
                "--initial-cluster-token", clusterToken,
                "--initial-cluster-state", "new",
                "--logger", "zap",
                "--log-outputs", "stderr",
                "--log-level", "warn"));
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        pb.environment().remove("ETCDCTL_API");
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + binary, e);
        }
        LIVE.add(process);
    }

    /** Blocks until {@code GET /health} says true, or fails with the tail of the log. */
    public void awaitHealthy(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Process p = process;
            if (p == null || !p.isAlive()) {
                throw new IllegalStateException("etcd " + name + " exited during start; log tail:\n" + logTail());
            }
            if (isHealthy()) {
                return;
            }
            sleep(50);
        }
        throw new IllegalStateException("etcd " + name + " not healthy after " + timeout + "; log tail:\n" + logTail());
    }

    /** True if the member answers {@code /health} with {@code "health":"true"} (it has a leader). */
    public boolean isHealthy() {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(clientUrl() + "/health"))
                    .timeout(Duration.ofSeconds(1)).GET().build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 && r.body().replace(" ", "").contains("\"health\":\"true\"");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * This member's raft status via etcd's JSON gateway ({@code POST /v3/maintenance/status}): its own member
     * id and the leader's, as decimal strings; null if the member does not answer.
     */
    public MemberStatus status() {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(clientUrl() + "/v3/maintenance/status"))
                    .timeout(Duration.ofSeconds(2)).POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                return null;
            }
            String self = jsonString(r.body(), "member_id");
            String leader = jsonString(r.body(), "leader");
            return self == null ? null : new MemberStatus(self, leader);
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Raft view of one member: its id and the id of the leader it follows (null/"0" while there is none). */
    public record MemberStatus(String memberId, String leaderId) {
        public boolean isLeader() {
            return memberId.equals(leaderId);
        }
    }

    private static String jsonString(String json, String field) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + field + "\"\\s*:\\s*\"([^\"]*)\"").matcher(json);
        return m.find() ? m.group(1) : null;
    }

    /** Graceful stop (SIGTERM), waits for exit. */
    public synchronized void stop() {
        terminate(false);
    }

    /** Abrupt stop (SIGKILL), like a crashed pod. */
    public synchronized void kill() {
        terminate(true);
    }

    /** Starts again on the same ports and data directory (after {@link #stop()} or {@link #kill()}). */
    public void restart() {
        synchronized (this) {
            if (isRunning()) {
                terminate(false);
            }
            start();
        }
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** pid of the running process, or -1. */
    public synchronized long pid() {
        return isRunning() ? process.pid() : -1;
    }

    public String name() {
        return name;
    }

    public int clientPort() {
        return clientPort;
    }

    public int peerPort() {
        return peerPort;
    }

    /** {@code http://127.0.0.1:<clientPort>} */
    public String clientUrl() {
        return "http://127.0.0.1:" + clientPort;
    }

    public String peerUrl() {
        return "http://127.0.0.1:" + peerPort;
    }

    public Path dataDir() {
        return dataDir;
    }

    public Path logFile() {
        return logFile;
    }

    @Override
    public synchronized void close() {
        terminate(true);
    }

    private void terminate(boolean forcibly) {
        Process p = process;
        if (p == null) {
            return;
        }
        if (forcibly) {
            p.destroyForcibly();
        } else {
            p.destroy();
        }
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
        }
        LIVE.remove(p);
        process = null;
    }

    String logTail() {
        try {
            List<String> lines = Files.exists(logFile) ? Files.readAllLines(logFile) : List.of();
            return lines.subList(Math.max(0, lines.size() - 8), lines.size()).stream()
                    .map(l -> l.length() > 300 ? l.substring(0, 300) + "..." : l)
                    .collect(java.util.stream.Collectors.joining("\n"));
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    /** True if the log says a port was taken (another process won the race for a "free" port). */
    boolean failedToBind() {
        return logTail().contains("address already in use");
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for etcd", e);
        }
    }
}
