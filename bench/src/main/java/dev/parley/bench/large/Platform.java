package dev.parley.bench.large;

import com.nimbusds.jose.jwk.ECKey;
import dev.parley.bench.controller.ControllerEnv;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.testsupport.etcd.EtcdCluster;
import dev.parley.testsupport.net.FreePorts;
import dev.parley.testsupport.postgres.PostgresExtension;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The local platform of one large meeting, all real and on loopback: etcd, embedded PostgreSQL (a fresh database),
 * {@code k} SFU processes from sfu-pod.jar, each registered in etcd in its own MediaRegion {@code r0..r(k-1)} with
 * one media worker, and the controller jar (region {@code r0}) that places participants by the region they name and
 * relays between the SFUs with its own relay driver. Nothing is stubbed.
 */
final class Platform implements AutoCloseable {
    static final String JWT_SECRET = "large-hmac-secret-0123456789abcdef0123456789";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** One SFU process: its pod name, region and internal port. */
    record Sfu(String pod, String region, Process process, int internalPort, Path log) {
        String url(String path) {
            return "http://127.0.0.1:" + internalPort + path;
        }
    }

    final String base;
    final List<Sfu> sfus = new ArrayList<>();
    final Path logDir;
    private final String internalSecret = "large-internal-" + System.nanoTime();
    private final EtcdCluster etcd;
    private Process controller;

    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    /** @param sfuHeap the SFUs' -Xmx (each subscriber's slots keep packet caches: 1 GB held about 500 subscribers) */
    Platform(Path controllerJar, Path sfuJar, int sfuCount, String sfuHeap, Path logDir) throws Exception {
        Runtime.getRuntime().addShutdownHook(new Thread(this::close));   // a killed run leaves no pods behind
        this.logDir = logDir;
        Files.createDirectories(logDir);
        etcd = EtcdCluster.start(1);
        ECKey ticketKey = TicketKeys.generate();
        String java = ProcessHandle.current().info().command().orElse("java");
        for (int i = 0; i < sfuCount; i++) {
            int internal = FreePorts.tcp();
            Map<String, String> env = new HashMap<>();
            env.put("PARLEY_POD_NAME", "sfu-" + i);
            env.put("PARLEY_REGION", "r" + i);
            env.put("PARLEY_BIND_ADDRESS", "127.0.0.1");
            env.put("PARLEY_ANNOUNCED_ADDRESS", "127.0.0.1");
            env.put("PARLEY_ETCD_ENDPOINTS", etcd.endpointsCsv());
            env.put("PARLEY_INTERNAL_SECRET", internalSecret);
            env.put("PARLEY_INTERNAL_PORT", Integer.toString(internal));
            env.put("PARLEY_LEASE_TTL_SECONDS", "10");          // a loaded 2-core machine must not lose the lease
            env.put("PARLEY_SFU_WORKERS", "1");                  // one media thread each: 2 cores for everything
            env.put("PARLEY_MEDIA_UDP_PORT", Integer.toString(FreePorts.udp()));
            env.put("PARLEY_MEDIA_TCP_PORT", Integer.toString(FreePorts.tcp()));
            env.put("PARLEY_TICKET_PUBLIC_JWK", ticketKey.toPublicJWK().toJSONString());
            env.put("PARLEY_SFU_LOOPBACK_PEERS_ONLY", "true");
            Path log = logDir.resolve("sfu-" + i + ".log");
            Process p = start(List.of(java, "-Xms256m", "-Xmx" + sfuHeap, "-XX:+UseParallelGC",
                    "--enable-native-access=ALL-UNNAMED", "-jar", sfuJar.toString()), env, log);
            Sfu sfu = new Sfu("sfu-" + i, "r" + i, p, internal, log);
            sfus.add(sfu);
            // one JVM at a time: on a small shared machine concurrent starts time out on etcd
            waitReady(p, sfu.url("/readyz"), log);
        }
        EmbeddedPostgres pg = PostgresExtension.server();
        String db = "large_" + ProcessHandle.current().pid() + "_" + System.nanoTime() % 100000;
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db);
        }
        int port = FreePorts.tcp();
        Map<String, String> env = new HashMap<>();
        ControllerEnv.fill(env, "controller-large", "r0", port, etcd.endpoints().get(0), pg.getPort(), db,
                internalSecret, JWT_SECRET);
        env.put("PARLEY_TICKET_PRIVATE_JWK", ticketKey.toJSONString());   // the SFUs verify tickets with its public half
        env.put("PARLEY_INTERNAL_PORT", Integer.toString(FreePorts.tcp()));
        env.put("PARLEY_LEASE_TTL_SECONDS", "10");
        // every bench socket comes from 127.0.0.1: no cap on unjoined sockets per source
        env.put("PARLEY_SIGNALING_MAX_UNJOINED_PER_SOURCE", "0");
        Path log = logDir.resolve("controller.log");
        controller = start(List.of(java, "-Xmx1536m", "-jar", controllerJar.toString()), env, log);
        base = "http://127.0.0.1:" + port;
        waitReady(controller, base + "/health", log);
    }

    private static Process start(List<String> cmd, Map<String, String> env, Path log) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(env);
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        return pb.start();
    }

    private static void waitReady(Process p, String url, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) throw new IllegalStateException("process exited with " + p.exitValue() + " (log " + log + ")");
            try {
                if (HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) return;
            } catch (Exception notYet) {
                // starting
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException(url + " not ready in 120 s (log " + log + ")");
    }

    long controllerPid() {
        return controller.pid();
    }

    /** user + system CPU of a process so far, in ms ({@code /proc/PID/stat}, 100 ticks/s); -1 if gone. */
    static long cpuMillis(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10;
        } catch (Exception e) {
            return -1;
        }
    }

    /** An SFU's Prometheus text. */
    String metrics(Sfu sfu) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(sfu.url("/metrics"))).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** An SFU's {@code GET /internal/v1/state} (per participant: transports, slots). */
    String state(Sfu sfu) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(sfu.url("/internal/v1/state")))
                .header("Authorization", "Bearer " + internalSecret).timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IllegalStateException(sfu.pod() + " /state answered " + r.statusCode());
        return r.body();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        if (controller != null) {
            controller.destroy();
            try {
                controller.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            controller.destroyForcibly();
        }
        for (Sfu s : sfus) {
            s.process().destroy();
        }
        for (Sfu s : sfus) {
            try {
                if (!s.process().waitFor(10, TimeUnit.SECONDS)) s.process().destroyForcibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        etcd.close();
    }
}
