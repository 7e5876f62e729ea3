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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The platform on this machine for browser tests: real PostgreSQL (embedded binaries) and etcd from
 * test-support, one controller pod and N SFU pods started from their jars with the environment of
 * docs/configuration.md, everything on loopback. Jar paths can be overridden with the system properties
 * {@code parley.e2e.controllerJar} and {@code parley.e2e.sfuJar}.
 */
final class LocalPlatform implements AutoCloseable {
    static final Path ROOT = StaticSite.publicDir().getParent().getParent().getParent().getParent().getParent();
    static final Path CONTROLLER_JAR = Paths.get(System.getProperty("parley.e2e.controllerJar",
        ROOT.resolve("controller-pod/target/controller-pod.jar").toString()));
    static final Path SFU_JAR = Paths.get(System.getProperty("parley.e2e.sfuJar",
        ROOT.resolve("sfu-pod/target/sfu-pod.jar").toString()));
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    final String internalSecret = UUID.randomUUID().toString();
    final List<PodProcess> sfus = new ArrayList<>();
    final Map<String, Integer> sfuInternalPorts = new HashMap<>();
    private final Path controllerJar;
    private final Path sfuJar;
    private final Path logDir;
    /** Per SFU i: its region ({@code PARLEY_REGION}); "local" unless started with {@link #start(List, Map, Map)}. */
    private List<String> sfuRegions = List.of();
    /** Extra controller environment (e.g. its region, the spill stress). */
    private Map<String, String> controllerEnv = Map.of();
    private EtcdCluster etcd;
    private PodProcess controller;
    private String baseUrl;

    private LocalPlatform(Path controllerJar, Path sfuJar, Path logDir) {
        this.controllerJar = controllerJar;
        this.sfuJar = sfuJar;
        this.logDir = logDir;
    }

    /** Why the platform cannot run here, or null when it can (with {@code sfuCount} SFUs). */
    static String missing(int sfuCount) {
        if (!Files.isRegularFile(CONTROLLER_JAR)) return "controller jar not built: " + CONTROLLER_JAR + " (package controller-pod first)";
        if (sfuCount > 0 && !Files.isRegularFile(SFU_JAR)) return "SFU jar not built: " + SFU_JAR + " (package sfu-pod first)";
        if (!Chromium.available()) return "chromium not installed at " + Chromium.EXECUTABLE;
        return null;
    }

    static LocalPlatform start(int sfuCount) throws Exception {
        return start(sfuCount, Map.of());
    }

    /** With extra environment for every SFU (e.g. {@code PARLEY_SFU_TEST_HOOKS=true}). */
    static LocalPlatform start(int sfuCount, Map<String, String> sfuEnv) throws Exception {
        return start(sfuCount, sfuEnv, CONTROLLER_JAR, SFU_JAR, Path.of("target", "platform-logs"));
    }

    /** From other jars than this tree's, logging into {@code logDir} (bench/join runs an older build beside this one). */
    static LocalPlatform start(int sfuCount, Map<String, String> sfuEnv, Path controllerJar, Path sfuJar, Path logDir) throws Exception {
        LocalPlatform p = new LocalPlatform(controllerJar, sfuJar, logDir);
        try {
            p.boot(sfuCount, sfuEnv);
            return p;
        } catch (Exception | Error e) {
            p.close();
            throw e;
        }
    }

    /**
     * One SFU per entry of {@code sfuRegions} (sfu-i in region {@code sfuRegions.get(i)}: a meeting spanning regions),
     * {@code sfuEnv} for every SFU, {@code controllerEnv} added to the controller's environment.
     */
    static LocalPlatform start(List<String> sfuRegions, Map<String, String> sfuEnv, Map<String, String> controllerEnv) throws Exception {
        LocalPlatform p = new LocalPlatform(CONTROLLER_JAR, SFU_JAR, Path.of("target", "platform-logs"));
        p.sfuRegions = List.copyOf(sfuRegions);
        p.controllerEnv = Map.copyOf(controllerEnv);
        try {
            p.boot(sfuRegions.size(), sfuEnv);
            return p;
        } catch (Exception | Error e) {
            p.close();
            throw e;
        }
    }

    private void boot(int sfuCount, Map<String, String> sfuEnv) throws Exception {
        etcd = EtcdCluster.start(1);
        PostgresExtension.Database db = PostgresExtension.createDatabase("platform_e2e");
        ECKey ticketKey = TicketKeys.generate();
        String etcdEndpoints = etcd.endpointsCsv();
        for (int i = 0; i < sfuCount; i++) {
            int internal = FreePorts.tcp();
            Map<String, String> env = new HashMap<>();
            env.put("PARLEY_POD_NAME", "sfu-" + i);
            env.put("PARLEY_REGION", i < sfuRegions.size() ? sfuRegions.get(i) : "local");
            env.put("PARLEY_BIND_ADDRESS", "127.0.0.1");
            env.put("PARLEY_ANNOUNCED_ADDRESS", "127.0.0.1");
            env.put("PARLEY_ETCD_ENDPOINTS", etcdEndpoints);
            env.put("PARLEY_INTERNAL_SECRET", internalSecret);
            env.put("PARLEY_LEASE_TTL_SECONDS", "3");
            // worker k binds base + k: reserve as many ports as the SFU's default worker count (one per core)
            int workers = Runtime.getRuntime().availableProcessors();
            env.put("PARLEY_MEDIA_UDP_PORT", Integer.toString(FreePorts.tcpAndUdpRange(workers)));
            env.put("PARLEY_MEDIA_TCP_PORT", Integer.toString(FreePorts.tcpAndUdpRange(workers)));
            env.put("PARLEY_INTERNAL_PORT", Integer.toString(internal));
            env.put("PARLEY_TICKET_PUBLIC_JWK", ticketKey.toPublicJWK().toJSONString());
            env.putAll(sfuEnv);
            PodProcess sfu = PodProcess.start("sfu-" + i, sfuJar, env, logDir);
            sfus.add(sfu);
            sfuInternalPorts.put(sfu.name(), internal);
            // one JVM at a time: on a small shared machine concurrent starts time out on etcd
            sfu.awaitReady("http://127.0.0.1:" + internal + "/readyz", Duration.ofSeconds(60));
        }
        int http = FreePorts.tcp();
        baseUrl = "http://localhost:" + http;
        Map<String, String> env = new HashMap<>();
        env.put("PARLEY_POD_NAME", "controller-0");
        env.put("PARLEY_REGION", "local");
        env.put("PARLEY_BIND_ADDRESS", "127.0.0.1");
        env.put("PARLEY_HTTP_PORT", Integer.toString(http));
        env.put("PARLEY_INTERNAL_PORT", Integer.toString(FreePorts.tcp()));
        env.put("PARLEY_PUBLIC_URL", baseUrl);
        env.put("PARLEY_DB_URL", db.jdbcUrl());
        env.put("PARLEY_DB_USER", db.user());
        env.put("PARLEY_DB_PASSWORD", db.password());
        env.put("PARLEY_LOCAL_MODE", "true");
        env.put("PARLEY_JWT_HMAC_SECRET", UUID.randomUUID() + UUID.randomUUID().toString());
        env.put("PARLEY_TICKET_PRIVATE_JWK", ticketKey.toJSONString());
        env.put("PARLEY_ETCD_ENDPOINTS", etcdEndpoints);
        env.put("PARLEY_INTERNAL_SECRET", internalSecret);
        env.put("PARLEY_LEASE_TTL_SECONDS", "5");
        env.putAll(controllerEnv);
        controller = PodProcess.start("controller-0", controllerJar, env, logDir);
        controller.awaitReady("http://127.0.0.1:" + http + "/health/readiness", Duration.ofSeconds(90));
    }

    /** The app's origin, http://localhost:PORT. */
    String baseUrl() {
        return baseUrl;
    }

    PodProcess controller() {
        return controller;
    }

    /** The live SFU whose state mentions the meeting, or null. */
    PodProcess sfuOf(String meetingId) throws Exception {
        for (PodProcess s : sfus) {
            if (!s.alive()) continue;
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sfuInternalPorts.get(s.name()) + "/internal/v1/state"))
                .header("Authorization", "Bearer " + internalSecret).timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200 && r.body().contains(meetingId)) return s;
        }
        return null;
    }

    @Override
    public void close() {
        if (controller != null) controller.close();
        for (PodProcess s : sfus) s.close();
        if (etcd != null) etcd.close();
    }
}
