package dev.parley.controller.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.parley.controller.Application;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.testsupport.etcd.EtcdCluster;
import io.etcd.jetcd.Client;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A real environment for controller tests: embedded PostgreSQL, an etcd process, SFU test doubles and
 * one or more controller instances (each a full Micronaut application on its own loopback port).
 */
public final class ControllerHarness implements AutoCloseable, BeforeAllCallback, AfterAllCallback {
    public static final String JWT_SECRET = "test-hmac-secret-0123456789abcdef0123456789";
    public static final String INTERNAL_SECRET = "internal-secret-0123456789";
    public static final ObjectMapper JSON = new ObjectMapper();

    public EtcdCluster etcd;
    public Client etcdClient;
    public String dbUrl;
    public final ECKey ticketKey = TicketKeys.generate();
    public final List<TestSfuDouble> sfus = new ArrayList<>();
    public final List<ApplicationContext> controllers = new ArrayList<>();
    public final List<ParleyConfig> configs = new ArrayList<>();
    public final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    public final String region = "test-" + UUID.randomUUID().toString().substring(0, 8);

    private final int sfuCount;
    private final Map<String, String> perClassEnv;
    private final List<String> perClassControllers;
    /** Where the controllers' database comes from (a fresh one on the shared server unless told otherwise). */
    private java.util.concurrent.Callable<String> database = TestPostgres::freshDatabaseUrl;

    /** Starts now: etcd, a fresh database and {@code sfuCount} SFU doubles; controllers are started by the test. */
    public ControllerHarness(int sfuCount) throws Exception {
        this(sfuCount, Map.of(), List.of());
        start();
    }

    private ControllerHarness(int sfuCount, Map<String, String> env, List<String> controllers) {
        this.sfuCount = sfuCount;
        this.perClassEnv = env;
        this.perClassControllers = controllers;
    }

    /**
     * The usual test-class environment as a JUnit extension: {@code @RegisterExtension static final
     * ControllerHarness h = ControllerHarness.perClass(1, "controller-0");} starts etcd, a fresh database, the SFU
     * doubles and the named controllers before the class's own {@code @BeforeAll} methods, and closes all after it.
     */
    public static ControllerHarness perClass(int sfuCount, String... controllers) {
        return perClass(sfuCount, Map.of(), controllers);
    }

    /** As {@link #perClass(int, String...)}, each controller started with {@code env} added to its configuration. */
    public static ControllerHarness perClass(int sfuCount, Map<String, String> env, String... controllers) {
        return new ControllerHarness(sfuCount, env, List.of(controllers));
    }

    /**
     * Takes the controllers' database URL from {@code database} (called once, before anything starts) instead of a
     * fresh database on the shared server: for a test that stops its own PostgreSQL.
     */
    public ControllerHarness onDatabase(java.util.concurrent.Callable<String> database) {
        this.database = database;
        return this;
    }

    private void start() throws Exception {
        etcd = EtcdCluster.start(1);
        etcdClient = Client.builder().endpoints(etcd.endpoints().get(0)).build();
        dbUrl = database.call();
        for (int i = 0; i < sfuCount; i++) {
            addSfu("sfu-" + i);
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start();
        for (String pod : perClassControllers) {
            startController(pod, perClassEnv);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    /** Starts an SFU double registered in etcd (tried up to 3 times, like a controller: see {@link #startWithLeaseRetry}). */
    public TestSfuDouble addSfu(String pod) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                TestSfuDouble s = new TestSfuDouble(pod, region, etcdClient, ticketKey.toPublicJWK(), INTERNAL_SECRET);
                sfus.add(s);
                return s;
            } catch (RuntimeException e) {
                if (attempt >= 3 || !causedByLeaseGrant(e)) {
                    throw e;
                }
                System.err.println("SFU double " + pod + " attempt " + attempt + " could not grant its etcd lease; retrying");
                Thread.sleep(1000);
            }
        }
    }

    public ParleyConfig config(String pod, Map<String, String> extra) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Map<String, String> env = new HashMap<>();
        env.put("PARLEY_POD_NAME", pod);
        env.put("PARLEY_REGION", region);
        env.put("PARLEY_BIND_ADDRESS", "127.0.0.1");
        env.put("PARLEY_HTTP_PORT", String.valueOf(port));
        env.put("PARLEY_ETCD_ENDPOINTS", etcd.endpoints().get(0));
        env.put("PARLEY_INTERNAL_SECRET", INTERNAL_SECRET);
        env.put("PARLEY_LEASE_TTL_SECONDS", "3");
        env.put("PARLEY_DB_URL", dbUrl);
        env.put("PARLEY_DB_USER", "postgres");
        env.put("PARLEY_DB_PASSWORD", "postgres");
        env.put("PARLEY_LOCAL_MODE", "true");
        env.put("PARLEY_JWT_HMAC_SECRET", JWT_SECRET);
        env.put("PARLEY_TICKET_PRIVATE_JWK", ticketKey.toJSONString());
        env.put("PARLEY_TURN_SECRETS", "turn-secret-a,turn-secret-b");
        env.put("PARLEY_TURN_URLS", "turn:127.0.0.1:3478?transport=udp");
        env.put("PARLEY_MAX_BODY_BYTES", "16384");
        env.putAll(extra);
        return ParleyConfig.from(env::get);
    }

    public ApplicationContext startController(String pod) throws Exception {
        return startController(pod, Map.of());
    }

    public ApplicationContext startController(String pod, Map<String, String> extra) throws Exception {
        ParleyConfig cfg = config(pod, extra);
        ApplicationContext ctx = startWithLeaseRetry(cfg);
        controllers.add(ctx);
        configs.add(cfg);
        return ctx;
    }

    /**
     * On a starved machine a freshly started etcd can miss the 5 s lease-grant deadline at controller (or SFU
     * double) startup; that is the environment, not the behaviour under test, so startup is tried up to 3 times.
     */
    private static ApplicationContext startWithLeaseRetry(ParleyConfig cfg) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return Application.start(cfg);
            } catch (RuntimeException e) {
                if (attempt >= 3 || !causedByLeaseGrant(e)) {
                    throw e;
                }
                System.err.println("controller start attempt " + attempt + " could not grant its etcd lease; retrying");
                Thread.sleep(1000);
            }
        }
    }

    private static boolean causedByLeaseGrant(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("could not grant etcd lease")) {
                return true;
            }
        }
        return false;
    }

    public String base(int controller) {
        return configs.get(controller).publicUrl();
    }

    public static String token(UUID tenant, UUID principal) {
        return token(tenant, principal, JWT_SECRET, Duration.ofHours(1));
    }

    public static String token(UUID tenant, UUID principal, String secret, Duration validFor) {
        try {
            SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), new JWTClaimsSet.Builder()
                    .subject(principal.toString()).claim("tid", tenant.toString()).claim("name", "n")
                    .issueTime(new Date()).expirationTime(new Date(System.currentTimeMillis() + validFor.toMillis()))
                    .build());
            jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
            return jwt.serialize();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A response as status + parsed JSON body (null when not JSON). */
    public record Res(int status, JsonNode body, String contentType, String raw, java.net.http.HttpHeaders headers) {
        public String text(String field) {
            return body.path(field).asText();
        }
    }

    public Res call(int controller, String method, String path, String token, String key, String body) {
        return call(base(controller), method, path, token, key, body, "application/json");
    }

    public Res call(String base, String method, String path, String token, String key, String body, String contentType) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20));
            if (token != null) {
                b.header("Authorization", "Bearer " + token);
            }
            if (key != null) {
                b.header("Idempotency-Key", key);
            }
            if (contentType != null) {
                b.header("Content-Type", contentType);
            }
            b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode n = null;
            try {
                n = r.body() == null || r.body().isEmpty() ? null : JSON.readTree(r.body());
            } catch (Exception ignored) {
                // not JSON
            }
            return new Res(r.statusCode(), n, r.headers().firstValue("Content-Type").orElse(""), r.body(), r.headers());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public Connection db() throws Exception {
        return DriverManager.getConnection(dbUrl, "postgres", "postgres");
    }

    public long count(String sql) throws Exception {
        try (Connection c = db(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    public String scalar(String sql) throws Exception {
        try (Connection c = db(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    public void stopController(int i) {
        ApplicationContext ctx = controllers.get(i);
        if (ctx.isRunning()) {
            ctx.stop();
        }
    }

    @Override
    public void close() {
        for (ApplicationContext c : controllers) {
            try {
                if (c.isRunning()) {
                    c.stop();
                }
            } catch (RuntimeException ignored) {
                // best effort
            }
        }
        for (TestSfuDouble s : sfus) {
            try {
                s.close();
            } catch (RuntimeException ignored) {
                // best effort
            }
        }
        if (etcdClient != null) {
            etcdClient.close();
        }
        if (etcd != null) {
            etcd.close();
        }
        // a per-class harness may start again (the build reruns a failed class's tests): nothing of this run stays
        controllers.clear();
        sfus.clear();
    }
}
