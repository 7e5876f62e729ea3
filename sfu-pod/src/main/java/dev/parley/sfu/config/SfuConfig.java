package dev.parley.sfu.config;

import java.util.Map;

/**
 * SFU settings from the environment (docs/configuration.md). Port 0 binds an ephemeral port (tests).
 *
 * @param ticketPublicJwk controller's ES256 public JWK (inline or @file) that signs connect tickets
 * @param etcdEndpoints   empty: run without registering (tests, benchmarks)
 * @param testHooks       enables the test-only loss switch endpoint
 * @param loopbackPeersOnly answer ICE checks only from loopback addresses (tests and benchmarks on one machine)
 * @param consentTimeoutMs a transport without a valid connectivity check for this long is closed (RFC 7675: 30 s)
 * @param workers         media workers (one event loop, one UDP + one ICE-TCP port, its own meetings each); worker
 *                        {@code i} binds {@code udpPort + i} and {@code tcpPort + i} (each ephemeral when the port is 0)
 */
public record SfuConfig(String podName, String region, String bindAddress, String announcedAddress,
                        int udpPort, int tcpPort, int internalPort, String internalSecret, String ticketPublicJwk,
                        String etcdEndpoints, long leaseTtlSeconds, boolean testHooks, long rembBitrateBps,
                        boolean loopbackPeersOnly, long consentTimeoutMs, int workers) {

    /** Consent timeout: the RFC 7675 default of 30 s. */
    public static final long DEFAULT_CONSENT_TIMEOUT_MS = 30_000;
    /** More workers than this is a configuration mistake (and a port range nobody meant). */
    public static final int MAX_WORKERS = 256;
    /** System property that sets the default worker count (the sfu-pod tests run with 2). */
    public static final String WORKERS_PROPERTY = "parley.sfu.workers";

    public SfuConfig {
        if (workers < 1 || workers > MAX_WORKERS) throw new IllegalArgumentException("PARLEY_SFU_WORKERS: 1.." + MAX_WORKERS + ", got " + workers);
        if (udpPort != 0 && udpPort + workers - 1 > 65535) throw new IllegalArgumentException("PARLEY_MEDIA_UDP_PORT + PARLEY_SFU_WORKERS - 1 exceeds 65535");
        if (tcpPort != 0 && tcpPort + workers - 1 > 65535) throw new IllegalArgumentException("PARLEY_MEDIA_TCP_PORT + PARLEY_SFU_WORKERS - 1 exceeds 65535");
    }

    public SfuConfig(String podName, String region, String bindAddress, String announcedAddress, int udpPort, int tcpPort,
                     int internalPort, String internalSecret, String ticketPublicJwk, String etcdEndpoints,
                     long leaseTtlSeconds, boolean testHooks, long rembBitrateBps, boolean loopbackPeersOnly, long consentTimeoutMs) {
        this(podName, region, bindAddress, announcedAddress, udpPort, tcpPort, internalPort, internalSecret, ticketPublicJwk,
                etcdEndpoints, leaseTtlSeconds, testHooks, rembBitrateBps, loopbackPeersOnly, consentTimeoutMs, defaultWorkers());
    }

    public SfuConfig(String podName, String region, String bindAddress, String announcedAddress, int udpPort, int tcpPort,
                     int internalPort, String internalSecret, String ticketPublicJwk, String etcdEndpoints,
                     long leaseTtlSeconds, boolean testHooks, long rembBitrateBps, boolean loopbackPeersOnly) {
        this(podName, region, bindAddress, announcedAddress, udpPort, tcpPort, internalPort, internalSecret, ticketPublicJwk,
                etcdEndpoints, leaseTtlSeconds, testHooks, rembBitrateBps, loopbackPeersOnly, DEFAULT_CONSENT_TIMEOUT_MS);
    }

    public static SfuConfig fromEnv(Map<String, String> env) {
        String bind = env.getOrDefault("PARLEY_BIND_ADDRESS", "127.0.0.1");
        return new SfuConfig(
                env.getOrDefault("PARLEY_POD_NAME", "sfu-0"),
                env.getOrDefault("PARLEY_REGION", "local"),
                bind,
                env.getOrDefault("PARLEY_ANNOUNCED_ADDRESS", bind),
                Integer.parseInt(env.getOrDefault("PARLEY_MEDIA_UDP_PORT", "7882")),
                Integer.parseInt(env.getOrDefault("PARLEY_MEDIA_TCP_PORT", "7881")),
                Integer.parseInt(env.getOrDefault("PARLEY_INTERNAL_PORT", "7080")),
                required(env, "PARLEY_INTERNAL_SECRET"),
                required(env, "PARLEY_TICKET_PUBLIC_JWK"),
                env.getOrDefault("PARLEY_ETCD_ENDPOINTS", ""),
                Long.parseLong(env.getOrDefault("PARLEY_LEASE_TTL_SECONDS", "5")),
                Boolean.parseBoolean(env.getOrDefault("PARLEY_SFU_TEST_HOOKS", "false")),
                Long.parseLong(env.getOrDefault("PARLEY_SFU_REMB_BPS", "4000000")),
                Boolean.parseBoolean(env.getOrDefault("PARLEY_SFU_LOOPBACK_PEERS_ONLY", "false")),
                Long.parseLong(env.getOrDefault("PARLEY_SFU_CONSENT_TIMEOUT_MS", String.valueOf(DEFAULT_CONSENT_TIMEOUT_MS))),
                workers(env.get("PARLEY_SFU_WORKERS")));
    }

    /** {@code PARLEY_SFU_WORKERS}: a number, or empty / {@code auto} for {@link #defaultWorkers()}. */
    static int workers(String value) {
        if (value == null || value.isBlank() || value.trim().equalsIgnoreCase("auto")) return defaultWorkers();
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("PARLEY_SFU_WORKERS: a number or 'auto', got '" + value + "'");
        }
    }

    /**
     * One worker per core this process may use ({@code availableProcessors} follows the container's CPU limit and
     * affinity), unless the {@value #WORKERS_PROPERTY} system property says otherwise.
     */
    public static int defaultWorkers() {
        return Math.max(1, Math.min(MAX_WORKERS, Integer.getInteger(WORKERS_PROPERTY, Runtime.getRuntime().availableProcessors())));
    }

    private static String required(Map<String, String> env, String key) {
        String v = env.get(key);
        if (v == null || v.isBlank()) throw new IllegalArgumentException(key + " is required");
        return v;
    }

    /** Effective configuration for the start-up log: no secret, no key. */
    public String describe() {
        return "pod=" + podName + " region=" + region + " bind=" + bindAddress + " announced=" + announcedAddress
                + " udp=" + udpPort + " tcp=" + tcpPort + " workers=" + workers + " internal=" + internalPort
                + " etcd=" + (etcdEndpoints.isBlank() ? "(none)" : etcdEndpoints) + " testHooks=" + testHooks;
    }

    @Override
    public String toString() { return "SfuConfig[" + describe() + "]"; }
}
