package dev.parley.bench.roster;

import dev.parley.bench.controller.BenchSfuStub;
import dev.parley.bench.controller.ControllerEnv;
import dev.parley.testsupport.etcd.EtcdCluster;
import dev.parley.testsupport.postgres.PostgresExtension;
import io.etcd.jetcd.Client;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real controller jar in its own JVM with etcd, embedded PostgreSQL (a fresh database) and the bench's stub
 * SFU, all on loopback, as {@code ControllerLoadBenchmark} starts it. {@link #cpuMillis()} reads the controller
 * process's user+system time from {@code /proc}.
 */
final class StormController implements AutoCloseable {
    static final String JWT_SECRET = "storm-hmac-secret-0123456789abcdef0123456789";
    private static final String INTERNAL_SECRET = "storm-internal-secret-0123456789";

    final String base;
    private final EtcdCluster etcd;
    private final Client etcdClient;
    private final BenchSfuStub sfu;
    private final Process process;
    final Path log;

    StormController(Path jar) throws Exception {
        etcd = EtcdCluster.start(1);
        etcdClient = Client.builder().endpoints(etcd.endpoints().get(0)).build();
        sfu = new BenchSfuStub("sfu-storm-0", "storm", etcdClient, INTERNAL_SECRET);
        EmbeddedPostgres pg = PostgresExtension.server();
        String db = "storm_" + ProcessHandle.current().pid() + "_" + System.nanoTime() % 100000;
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db);
        }
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder pb = new ProcessBuilder(List.of(java, "-Xmx1g", "-jar", jar.toString()));
        Map<String, String> env = pb.environment();
        ControllerEnv.fill(env, "controller-storm", "storm", port, etcd.endpoints().get(0), pg.getPort(), db,
                INTERNAL_SECRET, JWT_SECRET);
        // every bench socket comes from 127.0.0.1: no cap on unjoined sockets per source
        env.put("PARLEY_SIGNALING_MAX_UNJOINED_PER_SOURCE", "0");
        pb.redirectErrorStream(true);
        log = Files.createTempFile("controller-storm", ".log");
        pb.redirectOutput(log.toFile());
        process = pb.start();
        base = "http://127.0.0.1:" + port;
        waitReady();
    }

    private void waitReady() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("controller exited with " + process.exitValue() + " (log " + log + ")");
            }
            try {
                if (http.send(HttpRequest.newBuilder(URI.create(base + "/health")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (Exception notYet) {
                // starting
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("controller did not become healthy (log " + log + ")");
    }

    /** User + system CPU of the controller process so far, in ms ({@code /proc/PID/stat}, 100 ticks/s). */
    long cpuMillis() {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10;
        } catch (java.io.IOException e) {
            return -1;
        }
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        process.waitFor(10, TimeUnit.SECONDS);
        sfu.close();
        etcdClient.close();
        etcd.close();
    }
}
