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
 */
public record SfuConfig(String podName, String region, String bindAddress, String announcedAddress,
                        int udpPort, int tcpPort, int internalPort, String internalSecret, String ticketPublicJwk,
                        String etcdEndpoints, long leaseTtlSeconds, boolean testHooks, long rembBitrateBps,
                        boolean loopbackPeersOnly, long consentTimeoutMs) {

    /** Consent timeout: the RFC 7675 default of 30 s. */
    public static final long DEFAULT_CONSENT_TIMEOUT_MS = 30_000;

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
                Long.parseLong(env.getOrDefault("PARLEY_SFU_CONSENT_TIMEOUT_MS", String.valueOf(DEFAULT_CONSENT_TIMEOUT_MS))));
    }

    private static String required(Map<String, String> env, String key) {
        String v = env.get(key);
        if (v == null || v.isBlank()) throw new IllegalArgumentException(key + " is required");
        return v;
    }

    /** Effective configuration for the start-up log: no secret, no key. */
    public String describe() {
        return "pod=" + podName + " region=" + region + " bind=" + bindAddress + " announced=" + announcedAddress
                + " udp=" + udpPort + " tcp=" + tcpPort + " internal=" + internalPort
                + " etcd=" + (etcdEndpoints.isBlank() ? "(none)" : etcdEndpoints) + " testHooks=" + testHooks;
    }

    @Override
    public String toString() { return "SfuConfig[" + describe() + "]"; }
}
