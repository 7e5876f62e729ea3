package dev.parley.e2e.chaos;

import com.nimbusds.jose.jwk.ECKey;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.testsupport.etcd.EtcdCluster;
import dev.parley.testsupport.net.FreePorts;
import dev.parley.testsupport.s3.S3Proxy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The whole platform from real processes on loopback, for the chaos run: PostgreSQL (embedded binaries, restartable),
 * a 3-member etcd cluster, s3proxy (files, so an outage keeps the objects), three SFU pods, one TURN pod, two
 * controller pods, and recorder pods started per recording job (the operator's part). In front: a
 * {@link TcpFrontDoor} for the controllers' HTTP (the Service) and one {@link UdpImpairmentProxy} per SFU media port;
 * each controller reaches etcd through its own relays (one per member), so it alone can be cut off from etcd.
 * The pods are started from the jars of {@code ./mvnw -B -o -DskipTests package} with the environment of
 * docs/configuration.md, one JVM at a time, as e2e's LocalPlatform and RelayPlatform do.
 */
final class ChaosPlatform implements AutoCloseable {
    static final Path ROOT = findRoot();
    static final Path CONTROLLER_JAR = jar("parley.e2e.controllerJar", "controller-pod/target/controller-pod.jar");
    static final Path SFU_JAR = jar("parley.e2e.sfuJar", "sfu-pod/target/sfu-pod.jar");
    static final Path TURN_JAR = jar("parley.e2e.turnJar", "turn-pod/target/turn-pod.jar");
    static final Path RECORDER_JAR = jar("parley.e2e.recorderJar", "recorder-pod/target/recorder-pod.jar");
    static final int SFU_COUNT = 3;
    static final int CONTROLLER_COUNT = 2;
    private static final int RELAY_PORT_MIN = 61000, RELAY_PORT_MAX = 61999;

    final String internalSecret = UUID.randomUUID().toString();
    final String turnSecret = UUID.randomUUID().toString();
    final Path logDir;
    final List<Pod> sfus = new ArrayList<>();
    final List<Pod> controllers = new ArrayList<>();
    final List<Pod> recorders = new ArrayList<>();
    final Map<Integer, UdpImpairmentProxy> proxies = new HashMap<>(); // SFU media UDP port -> proxy
    /** Per controller: its relays to the three etcd members (cut them to partition it from etcd). */
    final Map<String, List<TcpFrontDoor>> etcdLinks = new HashMap<>();
    Pod turn;
    PostgresServer postgres;
    EtcdCluster etcd;
    S3Proxy s3;
    TcpFrontDoor front;
    private ECKey ticketKey;

    private ChaosPlatform(Path logDir) {
        this.logDir = logDir;
    }

    /** Why the platform cannot run here, or null. */
    static String missing() {
        for (Path p : List.of(CONTROLLER_JAR, SFU_JAR, TURN_JAR, RECORDER_JAR)) {
            if (!Files.isRegularFile(p)) return p + " not built (./mvnw -B -o -DskipTests package -pl controller-pod,sfu-pod,turn-pod,recorder-pod -am)";
        }
        if (!Files.isExecutable(Path.of(System.getProperty("parley.chromium", "/usr/bin/chromium")))) return "chromium not installed";
        return null;
    }

    static ChaosPlatform start(Path logDir) throws Exception {
        ChaosPlatform p = new ChaosPlatform(logDir);
        try {
            p.boot();
            return p;
        } catch (Exception | Error e) {
            p.close();
            throw e;
        }
    }

    private void boot() throws Exception {
        Files.createDirectories(logDir);
        long t0 = System.nanoTime();
        postgres = new PostgresServer(Files.createTempDirectory("parley-chaos-pg-"), FreePorts.tcp());
        postgres.start();
        etcd = EtcdCluster.start(3);
        s3 = S3Proxy.start("recordings", S3Proxy.Backend.FILESYSTEM);
        ticketKey = TicketKeys.generate();
        front = new TcpFrontDoor();
        log("PostgreSQL, etcd x3, s3proxy up in %d ms", (System.nanoTime() - t0) / 1_000_000);
        for (int i = 0; i < SFU_COUNT; i++) {
            int internal = FreePorts.tcp();
            int udp = FreePorts.udp();
            Map<String, String> env = common("sfu-" + i, internal);
            env.put("PARLEY_ANNOUNCED_ADDRESS", "127.0.0.1");
            env.put("PARLEY_LEASE_TTL_SECONDS", "3");
            env.put("PARLEY_MEDIA_UDP_PORT", Integer.toString(udp));
            env.put("PARLEY_MEDIA_TCP_PORT", Integer.toString(FreePorts.tcp()));
            // one media worker: the impairment proxy stands in front of one media port per SFU
            env.put("PARLEY_SFU_WORKERS", "1");
            env.put("PARLEY_TICKET_PUBLIC_JWK", ticketKey.toPublicJWK().toJSONString());
            Pod sfu = new Pod("sfu-" + i, "sfu", SFU_JAR, env, internal, "http://127.0.0.1:" + internal + "/readyz", logDir);
            sfus.add(sfu);
            proxies.put(udp, new UdpImpairmentProxy(udp));
        }
        int turnInternal = FreePorts.tcp();
        Map<String, String> env = common("turn-0", turnInternal);
        env.put("PARLEY_TURN_PORT", "0");
        env.put("PARLEY_TURN_SECRETS", turnSecret);
        env.put("PARLEY_TURN_ALLOWED_PEERS", "127.0.0.1/32");
        env.put("PARLEY_TURN_RELAY_PORTS", RELAY_PORT_MIN + "-" + RELAY_PORT_MAX);
        env.put("PARLEY_TURN_EVENT_LOOPS", "1");
        env.put("PARLEY_TURN_DRAIN_GRACE_SECONDS", "1");
        turn = new Pod("turn-0", "turn", TURN_JAR, env, turnInternal, "http://127.0.0.1:" + turnInternal + "/readyz", logDir);
        List<Pod> media = new ArrayList<>(sfus);
        media.add(turn);
        startAll(media, Duration.ofSeconds(120));
        String jwtSecret = UUID.randomUUID() + UUID.randomUUID().toString();
        List<Integer> httpPorts = new ArrayList<>();
        for (int i = 0; i < CONTROLLER_COUNT; i++) {
            int http = FreePorts.tcp();
            httpPorts.add(http);
            env = common("controller-" + i, FreePorts.tcp());
            List<TcpFrontDoor> links = new ArrayList<>();
            List<String> urls = new ArrayList<>();
            for (var m : etcd.members()) {
                TcpFrontDoor l = new TcpFrontDoor();
                l.setBackends(List.of(m.clientPort()));
                links.add(l);
                urls.add("http://127.0.0.1:" + l.port());
            }
            etcdLinks.put("controller-" + i, links);
            env.put("PARLEY_ETCD_ENDPOINTS", String.join(",", urls));
            env.put("PARLEY_HTTP_PORT", Integer.toString(http));
            env.put("PARLEY_PUBLIC_URL", "http://localhost:" + http);
            env.put("PARLEY_DB_URL", postgres.jdbcUrl());
            env.put("PARLEY_DB_USER", postgres.user());
            env.put("PARLEY_DB_PASSWORD", postgres.password());
            env.put("PARLEY_LOCAL_MODE", "true");
            env.put("PARLEY_JWT_HMAC_SECRET", jwtSecret);
            env.put("PARLEY_TICKET_PRIVATE_JWK", ticketKey.toJSONString());
            env.put("PARLEY_LEASE_TTL_SECONDS", "5");
            env.put("PARLEY_TURN_SECRETS", turnSecret);
            env.putAll(s3Env());
            env.put("PARLEY_RECORDING_DOWNLOAD_TTL_SECONDS", "300");
            Pod c = new Pod("controller-" + i, "controller", CONTROLLER_JAR, env, http,
                "http://127.0.0.1:" + http + "/health/readiness", logDir);
            controllers.add(c);
        }
        startAll(controllers, Duration.ofSeconds(180));
        front.setBackends(httpPorts);
        log("platform up in %d ms: %d SFUs, TURN, %d controllers, front door :%d", (System.nanoTime() - t0) / 1_000_000,
            sfus.size(), controllers.size(), front.port());
    }

    /**
     * Starts pods side by side (each retried if it exits while starting, see {@link Pod#start}): one at a time took
     * over two minutes on the loaded 2-core machine.
     */
    private static void startAll(List<Pod> pods, Duration timeout) throws Exception {
        List<java.util.concurrent.CompletableFuture<Void>> fs = new ArrayList<>();
        for (Pod p : pods) {
            fs.add(java.util.concurrent.CompletableFuture.runAsync(() -> {
                try {
                    p.start(timeout);
                } catch (Exception e) {
                    throw new IllegalStateException(p.name + ": " + e.getMessage(), e);
                }
            }, r -> Thread.ofVirtual().start(r)));
        }
        for (var f : fs) f.join();
    }

    private Map<String, String> common(String pod, int internalPort) {
        Map<String, String> env = new HashMap<>();
        env.put("PARLEY_POD_NAME", pod);
        env.put("PARLEY_REGION", "local");
        env.put("PARLEY_BIND_ADDRESS", "127.0.0.1");
        env.put("PARLEY_ETCD_ENDPOINTS", etcd.endpointsCsv());
        env.put("PARLEY_INTERNAL_SECRET", internalSecret);
        env.put("PARLEY_INTERNAL_PORT", Integer.toString(internalPort));
        return env;
    }

    Map<String, String> s3Env() {
        return Map.of("PARLEY_S3_ENDPOINT", s3.endpoint(), "PARLEY_S3_BUCKET", s3.bucket(),
            "PARLEY_S3_REGION", s3.region(), "PARLEY_S3_ACCESS_KEY", s3.accessKey(), "PARLEY_S3_SECRET_KEY", s3.secretKey());
    }

    /** The recorder pod for generation {@code generation} of {@code job} (what the operator would run). */
    Pod startRecorder(String job, int generation) throws Exception {
        int port = FreePorts.tcp();
        Map<String, String> env = new HashMap<>(s3Env());
        env.put("PARLEY_RECORDING_JOB_ID", job);
        env.put("PARLEY_RECORDING_GENERATION", Integer.toString(generation));
        env.put("PARLEY_POD_NAME", "recorder-" + job + "-g" + generation);
        env.put("PARLEY_ETCD_ENDPOINTS", etcd.endpointsCsv());
        env.put("PARLEY_LEASE_TTL_SECONDS", "3");
        env.put("PARLEY_RECORDER_SOURCE", "sfu");
        env.put("PARLEY_CONTROLLER_INTERNAL_URL", "http://127.0.0.1:" + front.port());
        env.put("PARLEY_INTERNAL_SECRET", internalSecret);
        env.put("PARLEY_BIND_ADDRESS", "127.0.0.1");
        env.put("PARLEY_INTERNAL_PORT", Integer.toString(port));
        env.put("PARLEY_RECORDER_SFU_SLOTS", "4");
        env.put("PARLEY_RECORDER_SEGMENT_SECONDS", "2");
        env.put("PARLEY_RECORDER_SPOOL_DIR", Files.createTempDirectory("parley-chaos-spool-").toString());
        env.put("PARLEY_RECORDER_TILE", "320x180");
        env.put("PARLEY_RECORDER_UPLOAD_TIMEOUT_MS", "3000");
        env.put("PARLEY_RECORDER_DRAIN_TIMEOUT_SECONDS", "60");
        Pod r = new Pod("recorder-g" + generation + "-" + job.substring(0, 8), "recorder", RECORDER_JAR, env, port,
            "http://127.0.0.1:" + port + "/readyz", logDir);
        recorders.add(r);
        r.start(Duration.ofSeconds(120));
        return r;
    }

    /** The public origin for browsers and the load client: the front door, as http://localhost:PORT. */
    String baseUrl() {
        return "http://localhost:" + front.port();
    }

    /** The proxy port clients use for an SFU's media UDP port (the port itself when there is no proxy). */
    int mediaPortFor(int sfuPort) {
        UdpImpairmentProxy p = proxies.get(sfuPort);
        return p == null ? sfuPort : p.port();
    }

    /** Largest one-way delay the proxies add right now, in ms. */
    int maxProxyDelayMs() {
        return proxies.values().stream().mapToInt(UdpImpairmentProxy::maxDelayMs).max().orElse(0);
    }

    Pod controllerNamed(String pod) {
        return controllers.stream().filter(c -> c.name.equals(pod)).findFirst().orElse(null);
    }

    Pod sfuNamed(String pod) {
        return sfus.stream().filter(s -> s.name.equals(pod)).findFirst().orElse(null);
    }

    private static volatile Path logFile;

    /** Also append every log line to {@code file} (failsafe keeps the test's output until the end). */
    static void logTo(Path file) {
        try {
            Files.createDirectories(file.getParent());
            Files.deleteIfExists(file);
        } catch (java.io.IOException ignored) {
            // stdout only
        }
        logFile = file;
    }

    static void log(String fmt, Object... args) {
        String line = java.time.LocalTime.now().withNano(0) + " chaos: " + String.format(fmt, args);
        System.out.println(line);
        Path f = logFile;
        if (f != null) {
            try {
                Files.writeString(f, line + "\n", java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            } catch (java.io.IOException ignored) {
                // stdout has it
            }
        }
    }

    @Override
    public void close() {
        for (Pod r : recorders) r.close();
        for (Pod c : controllers) c.close();
        if (turn != null) turn.close();
        for (Pod s : sfus) s.close();
        proxies.values().forEach(UdpImpairmentProxy::close);
        if (front != null) front.close();
        etcdLinks.values().forEach(ls -> ls.forEach(TcpFrontDoor::close));
        if (s3 != null) s3.close();
        if (etcd != null) etcd.close();
        if (postgres != null) postgres.close();
    }

    private static Path jar(String property, String relative) {
        return Path.of(System.getProperty(property, ROOT.resolve(relative).toString()));
    }

    private static Path findRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("controller-pod")) && Files.isRegularFile(p.resolve("mvnw"))) return p;
        }
        return Path.of("").toAbsolutePath().getParent();
    }
}
