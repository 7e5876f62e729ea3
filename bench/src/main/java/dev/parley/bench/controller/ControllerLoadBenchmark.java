package dev.parley.bench.controller;

import dev.parley.testsupport.etcd.EtcdCluster;
import dev.parley.testsupport.postgres.EmbeddedPostgresLauncher;
import dev.parley.testsupport.postgres.PostgresExtension;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.etcd.jetcd.Client;
import org.HdrHistogram.Histogram;

import java.net.InetSocketAddress;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Control-plane load on ONE controller process (the real fat jar, its own JVM) with PostgreSQL (embedded
 * binaries) and etcd on this machine, everything on loopback. Each worker loops: create a meeting with a
 * waiting room, the host joins, then {@code attendees} participants each join, get admitted and request a
 * transport (one "join" = join + admit + transport). Then one audio revocation per meeting. Reports
 * joins/s, per-operation latency p50/p99 and the controller's own authorization_enforcement_lag. The workers
 * are state machines on ONE selector thread ({@link LoadLoop}), each with its own keep-alive connection.
 *
 * <p>Usage: {@code java -cp bench.jar dev.parley.bench.controller.ControllerLoadBenchmark
 * [controllerJar] [seconds] [workers] [attendees] [warmupSeconds]}; env {@code CONTROLLER_JVM_OPTS} adds
 * controller JVM options (e.g. a JFR recording), {@code BENCH_PG_DURABLE=1} runs PostgreSQL with fsync on.
 */
public final class ControllerLoadBenchmark {
    static final String JWT_SECRET = "bench-hmac-secret-0123456789abcdef0123456789";
    static final String INTERNAL_SECRET = "bench-internal-secret-0123456789";

    private ControllerLoadBenchmark() {
    }

    public static void main(String[] args) {
        try {
            bench(args);
        } catch (Throwable t) {
            // never hang on a non-daemon thread after a failed start (compare.sh runs several jars in a row)
            System.out.println("benchmark failed: " + t);
            t.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    static void bench(String[] args) throws Exception {
        ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
                .setLevel(ch.qos.logback.classic.Level.WARN);
        Path jar = Path.of(args.length > 0 ? args[0] : "controller-pod/target/controller-pod.jar");
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        int workers = args.length > 2 ? Integer.parseInt(args[2]) : 32;
        int attendees = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        int warmup = args.length > 4 ? Integer.parseInt(args[4]) : 5;
        if (!Files.exists(jar)) {
            throw new IllegalArgumentException("controller jar not found: " + jar + " (build controller-pod first)");
        }
        String region = "bench";
        try (EtcdCluster etcd = EtcdCluster.start(1); Client etcdClient = Client.builder().endpoints(etcd.endpoints().get(0)).build();
             BenchSfuStub sfu = new BenchSfuStub("sfu-bench-0", region, etcdClient, INTERNAL_SECRET)) {
            System.out.println("stub SFU registered: " + sfu.url());
            String db = "bench_" + ProcessHandle.current().pid();
            // test-support's embedded server runs with fsync, synchronous_commit and full_page_writes off;
            // BENCH_PG_DURABLE=1 starts a separate server with all three on (production-like commits)
            boolean durable = "1".equals(System.getenv("BENCH_PG_DURABLE"));
            // BENCH_PG_STATS=1: a private server with pg_stat_statements, top statements printed at the end
            boolean stats = "1".equals(System.getenv("BENCH_PG_STATS"));
            EmbeddedPostgres pg = durable || stats ? privatePostgres(durable, stats) : PostgresExtension.server();
            System.out.println("PostgreSQL: " + (durable ? "fsync/synchronous_commit/full_page_writes ON (durable)"
                    : "test-support embedded server, fsync/synchronous_commit/full_page_writes OFF")
                    + (stats ? ", pg_stat_statements on" : ""));
            try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE " + db);
            }
            if (stats) {
                try (Connection c = pg.getDatabase(PostgresExtension.user(), db).getConnection(); Statement s = c.createStatement()) {
                    s.execute("CREATE EXTENSION pg_stat_statements");
                }
            }
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            // the same JDK as this JVM (the PATH may hold an older java)
            String java = ProcessHandle.current().info().command().orElse("java");
            List<String> cmd = new ArrayList<>(List.of(java, "-Xmx1g"));
            // extra controller JVM options, e.g. -XX:StartFlightRecording=... to profile the run
            String extra = System.getenv("CONTROLLER_JVM_OPTS");
            if (extra != null && !extra.isBlank()) {
                cmd.addAll(List.of(extra.trim().split("\\s+")));
            }
            cmd.addAll(List.of("-jar", jar.toString()));
            System.out.println("controller command: " + String.join(" ", cmd));
            ProcessBuilder pb = new ProcessBuilder(cmd);
            ControllerEnv.fill(pb.environment(), "controller-bench", region, port, etcd.endpoints().get(0), pg.getPort(), db,
                    INTERNAL_SECRET, JWT_SECRET);
            pb.redirectErrorStream(true);
            Path log = Files.createTempFile("controller-bench", ".log");
            pb.redirectOutput(log.toFile());
            Process controller = pb.start();
            try {
                String base = "http://127.0.0.1:" + port;
                waitReady(base, controller);
                System.out.println("controller up (log " + log + "); warm-up " + warmup + " s, then " + seconds
                        + " s with " + workers + " workers, " + attendees + " attendees per meeting");
                run(base, warmup, workers, attendees, false);
                if (stats) {
                    statementStats(pg, db, 0);
                }
                CpuSnapshot cpu0 = CpuSnapshot.take(controller.toHandle(), pg.getPort());
                long xact0 = transactions(pg, db);
                java.util.Map<String, Long> req0 = sfu.requestCounts();
                LoadLoop.Result result = run(base, seconds, workers, attendees, true);
                long joins = result.stats().joins();
                CpuSnapshot cpu = CpuSnapshot.take(controller.toHandle(), pg.getPort()).minus(cpu0);
                long xacts = transactions(pg, db) - xact0;
                // CPU the controller JVM itself spent (PostgreSQL, etcd and the load generator excluded)
                System.out.print(cpu.report(joins, result.loopCpuNanos() / 1_000_000, result.loopUserNanos() / 1_000_000));
                System.out.printf("PostgreSQL transactions (commits incl. autocommit statements): %.1f per join%n",
                        joins == 0 ? 0 : xacts / (double) joins);
                System.out.println(enforcementLag(base));
                System.out.println(sfuRequestsPerJoin(req0, sfu.requestCounts(), joins));
                if (stats) {
                    statementStats(pg, db, joins);
                }
            } finally {
                controller.destroy();
                controller.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Committed transactions of the bench database so far (autocommit statements count as one each). */
    static long transactions(EmbeddedPostgres pg, String db) throws Exception {
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT xact_commit FROM pg_stat_database WHERE datname = '" + db + "'")) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    /**
     * With {@code joins == 0}: resets pg_stat_statements; else prints the statements of the bench database that
     * took the most server time, per join (calls, execution + planning time).
     */
    static void statementStats(EmbeddedPostgres pg, String db, long joins) throws Exception {
        try (Connection c = pg.getDatabase(PostgresExtension.user(), db).getConnection(); Statement s = c.createStatement()) {
            if (joins == 0) {
                s.execute("SELECT pg_stat_statements_reset()");
                return;
            }
            System.out.println("PostgreSQL statements by server time (pg_stat_statements; per join: calls, exec ms, plan ms; rows/call):");
            try (java.sql.ResultSet rs = s.executeQuery("SELECT calls, total_exec_time, total_plan_time, rows, "
                    + "regexp_replace(query, '\\s+', ' ', 'g') FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid "
                    + "WHERE d.datname = '" + db + "' ORDER BY total_exec_time + total_plan_time DESC LIMIT 25")) {
                while (rs.next()) {
                    String q = rs.getString(5);
                    System.out.printf("  %6.2f calls %7.4f ms %7.4f ms %5.1f rows  %s%n", rs.getLong(1) / (double) joins,
                            rs.getDouble(2) / joins, rs.getDouble(3) / joins, rs.getLong(4) / (double) Math.max(1, rs.getLong(1)),
                            q.length() > 220 ? q.substring(0, 220) + "…" : q);
                }
            }
        }
    }

    /** A private embedded server with test-support's settings, durability (fsync etc.) on if asked, statement stats if asked. */
    static EmbeddedPostgres privatePostgres(boolean durable, boolean stats) throws java.io.IOException {
        EmbeddedPostgres.Builder b = EmbeddedPostgresLauncher.builder(Files.createTempDirectory("bench-pg-"), 0, true);
        if (durable) {
            b.setServerConfig("fsync", "on")
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("full_page_writes", "on");
        }
        if (stats) {
            b.setServerConfig("shared_preload_libraries", "pg_stat_statements")
                    .setServerConfig("pg_stat_statements.track_planning", "on");
        }
        EmbeddedPostgres pg = b.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                pg.close();
            } catch (java.io.IOException e) {
                System.err.println("closing the bench PostgreSQL: " + e);
            }
        }));
        return pg;
    }

    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    static void waitReady(String base, Process controller) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!controller.isAlive()) {
                throw new IllegalStateException("controller exited with " + controller.exitValue());
            }
            try {
                if (HTTP.send(HttpRequest.newBuilder(URI.create(base + "/health")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (Exception notYet) {
                // starting
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("controller did not become healthy");
    }

    /**
     * One run of the load loop on this thread; prints joins/s and the latency percentiles when {@code report}.
     * Returns what the loop did and its own CPU time.
     */
    static LoadLoop.Result run(String base, int seconds, int workers, int attendees, boolean report) throws Exception {
        URI u = URI.create(base);
        LoadLoop.Result r = LoadLoop.run(new InetSocketAddress(u.getHost(), u.getPort()), seconds, workers, attendees,
                new Ids(JWT_SECRET, System.nanoTime()));
        if (report) {
            LoadLoop.Stats st = r.stats();
            System.out.printf("joins (join+admit+transport): %d in %.1f s = %.0f joins/s; errors %d%n",
                    st.joins(), r.elapsedSeconds(), st.joins() / r.elapsedSeconds(), st.errors());
            print("create_meeting", st.create());
            print("join", st.join());
            print("admit (command)", st.admit());
            print("transport", st.transport());
            print("revoke_audio (command)", st.revoke());
        }
        return r;
    }

    static void print(String name, Histogram h) {
        System.out.printf("  %-24s n=%-7d p50=%6.1f ms  p99=%6.1f ms  max=%6.1f ms%n", name, h.getTotalCount(),
                h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0);
    }

    /** The controller's own committed → applied measurement (Micrometer summary, seconds). */
    /** What the controller asked the (stub) SFU over the window, per join: one line, by method and path. */
    static String sfuRequestsPerJoin(java.util.Map<String, Long> before, java.util.Map<String, Long> after, long joins) {
        StringBuilder b = new StringBuilder("SFU requests per join:");
        after.forEach((k, v) -> {
            long d = v - before.getOrDefault(k, 0L);
            if (d > 0) b.append(String.format(" %s %.2f;", k, joins == 0 ? 0 : d / (double) joins));
        });
        return b.toString();
    }

    static String enforcementLag(String base) throws Exception {
        String prom = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/prometheus")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        StringBuilder sb = new StringBuilder("server side (controller's Micrometer summaries, seconds): "
                + "authorization_enforcement_lag = revocation committed -> applied; request_latency per operation");
        for (String line : prom.split("\n")) {
            // Jars built before 2026-12-07 export these without the parley_ prefix; both are read for old-vs-new runs.
            String name = line.startsWith("parley_") ? line.substring("parley_".length()) : line;
            if (name.startsWith("authorization_enforcement_lag_seconds{") || name.startsWith("authorization_enforcement_lag_seconds_count")
                    || name.startsWith("authorization_enforcement_lag_seconds_max")
                    || (name.startsWith("request_latency_seconds{") && !name.contains("0.95"))) {
                sb.append("\n  ").append(line);
            }
        }
        return sb.toString();
    }
}
