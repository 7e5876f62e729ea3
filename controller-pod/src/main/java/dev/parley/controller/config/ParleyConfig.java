package dev.parley.controller.config;

import java.net.InetAddress;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The controller's effective configuration, read once from environment variables
 * (docs/configuration.md). {@link #toString()} shows no secrets.
 */
public record ParleyConfig(
        String podName,
        String region,
        String bindAddress,
        int httpPort,
        String publicUrl,
        CorsOrigins corsAllowedOrigins,
        List<String> etcdEndpoints,
        String internalSecret,
        long leaseTtlSeconds,
        String dbUrl,
        String dbUser,
        String dbPassword,
        boolean localMode,
        boolean devTokensForce,
        String jwtHmacSecret,
        String jwksUrl,
        String ticketPrivateJwk,
        List<String> turnSecrets,
        List<String> turnUrls,
        List<String> webhookUrls,
        String webhookSecret,
        int webhookMaxAttempts,
        int tenantMaxConcurrentParticipants,
        int meetingMaxParticipants,
        int maxBodyBytes,
        long grantRenewMillis,
        long reconnectGraceMillis,
        long signalingJoinTimeoutMillis,
        int signalingMaxUnjoinedPerSource,
        long ownerSweepMillis) {

    public static ParleyConfig fromEnv() {
        return from(System::getenv);
    }

    /** Builds from a lookup (env or a test map); defaults are the local-mode defaults. */
    public static ParleyConfig from(Function<String, String> env) {
        Function<String, String> e = k -> {
            String v = env.apply(k);
            return v == null || v.isBlank() ? null : v.trim();
        };
        String bind = or(e.apply("PARLEY_BIND_ADDRESS"), "127.0.0.1");
        int port = Integer.parseInt(or(e.apply("PARLEY_HTTP_PORT"), "8080"));
        String pod = or(e.apply("PARLEY_POD_NAME"), "controller-0");
        String publicUrl = or(e.apply("PARLEY_PUBLIC_URL"), "http://" + (bind.contains(":") ? "[" + bind + "]" : bind) + ":" + port);
        return new ParleyConfig(
                pod,
                or(e.apply("PARLEY_REGION"), "local"),
                bind,
                port,
                publicUrl,
                CorsOrigins.parse(e.apply("PARLEY_CORS_ALLOWED_ORIGINS")),
                list(or(e.apply("PARLEY_ETCD_ENDPOINTS"), "http://127.0.0.1:2379")),
                e.apply("PARLEY_INTERNAL_SECRET"),
                Long.parseLong(or(e.apply("PARLEY_LEASE_TTL_SECONDS"), "5")),
                or(e.apply("PARLEY_DB_URL"), "jdbc:postgresql://127.0.0.1:5432/parley"),
                or(e.apply("PARLEY_DB_USER"), "parley"),
                or(e.apply("PARLEY_DB_PASSWORD"), ""),
                Boolean.parseBoolean(or(e.apply("PARLEY_LOCAL_MODE"), "false")),
                Boolean.parseBoolean(or(e.apply("PARLEY_DEV_TOKENS_FORCE"), "false")),
                jwtSecret(e.apply("PARLEY_JWT_HMAC_SECRET"), e.apply("PARLEY_JWKS_URL"),
                        Boolean.parseBoolean(or(e.apply("PARLEY_LOCAL_MODE"), "false"))),
                e.apply("PARLEY_JWKS_URL"),
                e.apply("PARLEY_TICKET_PRIVATE_JWK"),
                list(e.apply("PARLEY_TURN_SECRETS")),
                list(e.apply("PARLEY_TURN_URLS")),
                list(e.apply("PARLEY_WEBHOOK_URLS")),
                e.apply("PARLEY_WEBHOOK_SECRET"),
                Integer.parseInt(or(e.apply("PARLEY_WEBHOOK_MAX_ATTEMPTS"), "8")),
                Integer.parseInt(or(e.apply("PARLEY_TENANT_MAX_CONCURRENT_PARTICIPANTS"), "10000")),
                Integer.parseInt(or(e.apply("PARLEY_MEETING_MAX_PARTICIPANTS"), "100")),
                Integer.parseInt(or(e.apply("PARLEY_MAX_BODY_BYTES"), "65536")),
                Long.parseLong(or(e.apply("PARLEY_GRANT_RENEW_MILLIS"), "1000")),
                Long.parseLong(or(e.apply("PARLEY_RECONNECT_GRACE_MILLIS"), "30000")),
                Long.parseLong(or(e.apply("PARLEY_SIGNALING_JOIN_TIMEOUT_MILLIS"), "10000")),
                Integer.parseInt(or(e.apply("PARLEY_SIGNALING_MAX_UNJOINED_PER_SOURCE"), "32")),
                Long.parseLong(or(e.apply("PARLEY_OWNER_SWEEP_MILLIS"), "2000")));
    }

    /** Local mode without configured keys gets a random HMAC secret (tokens then come from /v1/dev/tokens). */
    private static String jwtSecret(String configured, String jwks, boolean local) {
        if (configured != null || jwks != null || !local) {
            return configured;
        }
        byte[] b = new byte[32];
        new java.security.SecureRandom().nextBytes(b);
        return java.util.Base64.getEncoder().encodeToString(b);
    }

    private static String or(String v, String d) {
        return v == null ? d : v;
    }

    private static List<String> list(String v) {
        if (v == null) {
            return List.of();
        }
        return Arrays.stream(v.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    public boolean bindIsLoopback() {
        try {
            return InetAddress.getByName(bindAddress).isLoopbackAddress();
        } catch (Exception e) {
            return false;
        }
    }

    /** Dev token minting is on only in local mode, and on non-loopback binds only when forced. */
    public boolean devTokensEnabled() {
        return localMode && (bindIsLoopback() || devTokensForce);
    }

    public String signalingEndpoint() {
        // http → ws, https → wss (no regex: this runs for every transport answer)
        return (publicUrl.startsWith("http") ? "ws" + publicUrl.substring(4) : publicUrl) + "/v1/connect";
    }

    /** Micronaut properties derived from this configuration. */
    public Map<String, Object> toMicronautProperties() {
        Map<String, Object> p = new HashMap<>();
        p.put("micronaut.server.host", bindAddress);
        p.put("micronaut.server.port", httpPort);
        p.put("micronaut.server.max-request-size", maxBodyBytes);
        p.put("datasources.default.url", dbUrl);
        p.put("datasources.default.username", dbUser);
        p.put("datasources.default.password", dbPassword);
        if (jwtHmacSecret != null) {
            p.put("micronaut.security.token.jwt.signatures.secret.generator.secret", jwtHmacSecret);
            p.put("micronaut.security.token.jwt.signatures.secret.generator.jws-algorithm", "HS256");
        }
        if (jwksUrl != null) {
            p.put("micronaut.security.token.jwt.signatures.jwks.parley.url", jwksUrl);
        }
        corsAllowedOrigins.addMicronautProperties(p);
        return p;
    }

    @Override
    public String toString() {
        return "ParleyConfig[pod=" + podName + ", region=" + region + ", bind=" + bindAddress + ":" + httpPort
                + ", publicUrl=" + publicUrl + ", cors=" + corsAllowedOrigins + ", etcd=" + etcdEndpoints + ", leaseTtl=" + leaseTtlSeconds
                + "s, db=" + dbUrl + " user=" + dbUser + ", localMode=" + localMode
                + ", devTokens=" + devTokensEnabled() + ", jwt=" + (jwtHmacSecret != null ? "hmac(***)" : "")
                + (jwksUrl != null ? "jwks(" + jwksUrl + ")" : "")
                + ", ticketKey=" + (ticketPrivateJwk != null ? "configured" : "generated")
                + ", turnSecrets=" + turnSecrets.size() + ", turnUrls=" + turnUrls
                + ", webhooks=" + webhookUrls.size() + ", internalSecret=" + (internalSecret != null ? "***" : "none")
                + ", signalingJoinTimeout=" + signalingJoinTimeoutMillis + "ms, signalingMaxUnjoinedPerSource="
                + (signalingMaxUnjoinedPerSource > 0 ? String.valueOf(signalingMaxUnjoinedPerSource) : "unlimited")
                + "]";
    }
}
