package dev.parley.e2e.web;

import dev.parley.e2e.process.PodProcess;
import com.nimbusds.jose.jwk.ECKey;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.testsupport.etcd.EtcdCluster;
import dev.parley.testsupport.net.FreePorts;
import dev.parley.testsupport.postgres.PostgresExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The platform with a Parley TURN pod in front of the SFU: PostgreSQL and etcd from test-support, one SFU pod, one
 * TURN pod and one controller pod, started from their jars on loopback. The TURN pod registers in etcd like in a
 * cluster, and the controller hands it out (with REST credentials signed by the shared secret) because it finds the
 * entry there — nothing is configured statically. The TURN pod's peer allow list is loopback, where the SFU is (in a
 * cluster: the SFU pods' CIDR).
 *
 * <p>{@link LocalPlatform} boots the same pods without TURN and offers no hook for the extra pod and the
 * controller's TURN secret, hence this sibling. The TURN jar can be overridden with {@code parley.e2e.turnJar}.
 */
final class RelayPlatform implements AutoCloseable {
    static final Path TURN_JAR = Paths.get(System.getProperty("parley.e2e.turnJar",
        LocalPlatform.ROOT.resolve("turn-pod/target/turn-pod.jar").toString()));
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final int RELAY_PORT_MIN = 61000;
    private static final int RELAY_PORT_MAX = 61999;

    private final String internalSecret = UUID.randomUUID().toString();
    private final String turnSecret = UUID.randomUUID().toString();
    private EtcdCluster etcd;
    private PodProcess sfu;
    private PodProcess turn;
    private PodProcess controller;
    private int turnInternalPort;
    private String baseUrl;

    /** Why the platform cannot run here, or null when it can. */
    static String missing() {
        String m = LocalPlatform.missing(1);
        if (m != null) return m;
        if (!Files.isRegularFile(TURN_JAR)) return "TURN jar not built: " + TURN_JAR + " (package turn-pod first)";
        return null;
    }

    static RelayPlatform start() throws Exception {
        RelayPlatform p = new RelayPlatform();
        try {
            p.boot();
            return p;
        } catch (Exception | Error e) {
            p.close();
            throw e;
        }
    }

    private void boot() throws Exception {
        etcd = EtcdCluster.start(1);
        PostgresExtension.Database db = PostgresExtension.createDatabase("relay_e2e");
        ECKey ticketKey = TicketKeys.generate();
        String etcdEndpoints = etcd.endpointsCsv();

        int sfuInternal = FreePorts.tcp();
        Map<String, String> env = common("sfu-relay-0", etcdEndpoints, sfuInternal);
        env.put("PARLEY_ANNOUNCED_ADDRESS", "127.0.0.1");
        env.put("PARLEY_LEASE_TTL_SECONDS", "3");
        // one media worker: a second worker binds the next port up, which nobody checked was free (clean-clone CI of
        // 2026-12-07 17:27: "bind(..) failed: Address already in use" for sfu-w1, the class failed in its set-up)
        env.put("PARLEY_SFU_WORKERS", "1");
        env.put("PARLEY_MEDIA_UDP_PORT", Integer.toString(FreePorts.udp()));
        env.put("PARLEY_MEDIA_TCP_PORT", Integer.toString(FreePorts.tcp()));
        env.put("PARLEY_TICKET_PUBLIC_JWK", ticketKey.toPublicJWK().toJSONString());
        // one JVM at a time: on a small shared machine concurrent starts time out on etcd
        sfu = startReady("sfu-relay-0", LocalPlatform.SFU_JAR, env, "http://127.0.0.1:" + sfuInternal + "/readyz", 60);

        turnInternalPort = FreePorts.tcp();
        env = common("turn-relay-0", etcdEndpoints, turnInternalPort);
        env.put("PARLEY_TURN_PORT", "0"); // UDP and TCP on one free port; the registry entry carries it
        env.put("PARLEY_TURN_SECRETS", turnSecret);
        env.put("PARLEY_TURN_ALLOWED_PEERS", "127.0.0.1/32"); // where the SFU is
        // Relay ports above the ephemeral range: TURN refuses peers on its own relay ports (no relay loops), and on
        // one loopback address the SFU's free port could otherwise fall into the default range 49152-65535.
        env.put("PARLEY_TURN_RELAY_PORTS", RELAY_PORT_MIN + "-" + RELAY_PORT_MAX);
        env.put("PARLEY_TURN_EVENT_LOOPS", "1");
        env.put("PARLEY_TURN_DRAIN_GRACE_SECONDS", "1"); // SIGTERM at the end: do not wait for allocations
        turn = startReady("turn-relay-0", TURN_JAR, env, "http://127.0.0.1:" + turnInternalPort + "/readyz", 60);

        int http = FreePorts.tcp();
        baseUrl = "http://localhost:" + http;
        env = common("controller-relay-0", etcdEndpoints, FreePorts.tcp());
        env.put("PARLEY_HTTP_PORT", Integer.toString(http));
        env.put("PARLEY_PUBLIC_URL", baseUrl);
        env.put("PARLEY_DB_URL", db.jdbcUrl());
        env.put("PARLEY_DB_USER", db.user());
        env.put("PARLEY_DB_PASSWORD", db.password());
        env.put("PARLEY_LOCAL_MODE", "true");
        env.put("PARLEY_JWT_HMAC_SECRET", UUID.randomUUID() + UUID.randomUUID().toString());
        env.put("PARLEY_TICKET_PRIVATE_JWK", ticketKey.toJSONString());
        env.put("PARLEY_LEASE_TTL_SECONDS", "5");
        env.put("PARLEY_TURN_SECRETS", turnSecret);
        controller = startReady("controller-relay-0", LocalPlatform.CONTROLLER_JAR, env,
            "http://127.0.0.1:" + http + "/health/readiness", 90);
    }

    /**
     * Starts a pod and waits until it is ready. A pod that exits while starting is started again, up to three times,
     * as Kubernetes would restart it: on a loaded machine etcd sometimes answers the first lease grant too late and
     * the pod gives up (by design: it must not run without its lease).
     */
    private static PodProcess startReady(String name, Path jar, Map<String, String> env, String readyUrl, int seconds)
        throws Exception {
        for (int attempt = 1; ; attempt++) {
            PodProcess p = PodProcess.start(name, jar, env);
            try {
                p.awaitReady(readyUrl, Duration.ofSeconds(seconds));
                return p;
            } catch (IllegalStateException e) {
                boolean exited = !p.alive();
                p.close();
                if (!exited || attempt == 3) throw e;
                System.out.println(name + " exited while starting (attempt " + attempt + "), starting it again");
            }
        }
    }

    private Map<String, String> common(String pod, String etcdEndpoints, int internalPort) {
        Map<String, String> env = new HashMap<>();
        env.put("PARLEY_POD_NAME", pod);
        env.put("PARLEY_REGION", "local");
        env.put("PARLEY_BIND_ADDRESS", "127.0.0.1");
        env.put("PARLEY_ETCD_ENDPOINTS", etcdEndpoints);
        env.put("PARLEY_INTERNAL_SECRET", internalSecret);
        env.put("PARLEY_INTERNAL_PORT", Integer.toString(internalPort));
        return env;
    }

    /** The app's origin, http://localhost:PORT. */
    String baseUrl() {
        return baseUrl;
    }

    /** The TURN pod's Prometheus text (GET /metrics on its internal port). */
    String turnMetrics() throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + turnInternalPort + "/metrics"))
            .header("Authorization", "Bearer " + internalSecret).timeout(Duration.ofSeconds(5)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("TURN /metrics answered " + r.statusCode());
        }
        return r.body();
    }

    /** The value of an unlabelled or labelled sample, e.g. {@code parley_turn_allocations} (0 if absent). */
    double turnMetric(String sample) throws Exception {
        for (String line : turnMetrics().split("\n")) {
            if (line.startsWith(sample + " ")) {
                return Double.parseDouble(line.substring(sample.length() + 1).trim());
            }
        }
        return 0;
    }

    /** True if {@code port} is one of the TURN pod's relay ports (a relayed transport address on 127.0.0.1). */
    boolean isRelayPort(int port) {
        return port >= RELAY_PORT_MIN && port <= RELAY_PORT_MAX;
    }

    String turnLogTail() {
        return turn == null ? "(no TURN pod)" : turn.tail();
    }

    @Override
    public void close() {
        if (controller != null) controller.close();
        if (turn != null) turn.close();
        if (sfu != null) sfu.close();
        if (etcd != null) etcd.close();
    }
}
