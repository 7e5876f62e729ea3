package dev.parley.turn.config;

import dev.parley.platform.turn.TurnSecrets;
import dev.parley.turn.peer.PeerPolicy;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Effective configuration of a TURN pod, read from environment variables (docs/configuration.md). {@link #toString}
 * is safe to log: it never prints secrets.
 */
public record TurnConfig(
        InetAddress bindAddress,
        int port,
        int tlsPort,
        Path tlsCert,
        Path tlsKey,
        String realm,
        TurnSecrets secrets,
        int relayPortMin,
        int relayPortMax,
        InetAddress relayAddress,
        InetAddress externalAddress,
        InetAddress relayAddress6,
        InetAddress externalAddress6,
        String allowedPeers,
        int internalPort,
        String internalSecret,
        String region,
        String podName,
        List<String> etcdEndpoints,
        long leaseTtlSeconds,
        int maxAllocations,
        int maxAllocationsPerUser,
        long maxBitsPerSecondPerAllocation,
        int eventLoops,
        Duration drainGrace,
        Duration nonceTtl,
        int unauthenticatedPerSourcePerSecond,
        Duration tcpBindTimeout,
        int coalesceMicros) {

    public static final int DEFAULT_LIFETIME = 600;
    public static final int MAX_LIFETIME = 3600;
    public static final int PERMISSION_LIFETIME = 300;
    public static final int CHANNEL_LIFETIME = 600;
    public static final int DEFAULT_COALESCE_MICROS = 0;
    public static final int MAX_COALESCE_MICROS = 5_000;

    public static TurnConfig fromEnv(Map<String, String> env) {
        InetAddress bind = addr(env.getOrDefault("PARLEY_BIND_ADDRESS", "127.0.0.1"));
        String relayPorts = env.getOrDefault("PARLEY_TURN_RELAY_PORTS", "49152-65535");
        int dash = relayPorts.indexOf('-');
        if (dash < 0) {
            throw new IllegalArgumentException("PARLEY_TURN_RELAY_PORTS must be min-max");
        }
        int min = Integer.parseInt(relayPorts.substring(0, dash).trim());
        int max = Integer.parseInt(relayPorts.substring(dash + 1).trim());
        if (min < 1024 || max > 65535 || min > max) {
            throw new IllegalArgumentException("PARLEY_TURN_RELAY_PORTS out of range: " + relayPorts);
        }
        InetAddress relay = env.containsKey("PARLEY_TURN_RELAY_ADDRESS")
                ? addr(env.get("PARLEY_TURN_RELAY_ADDRESS")) : bind;
        if (relay.isAnyLocalAddress()) {
            throw new IllegalArgumentException("set PARLEY_TURN_RELAY_ADDRESS: relays must bind a concrete address");
        }
        InetAddress relay6 = env.containsKey("PARLEY_TURN_RELAY_ADDRESS6") ? addr(env.get("PARLEY_TURN_RELAY_ADDRESS6")) : null;
        if (relay6 != null && (!(relay6 instanceof Inet6Address) || relay6.isAnyLocalAddress())) {
            throw new IllegalArgumentException("PARLEY_TURN_RELAY_ADDRESS6 must be a concrete IPv6 address");
        }
        InetAddress external6 = env.containsKey("PARLEY_TURN_EXTERNAL_ADDRESS6") ? addr(env.get("PARLEY_TURN_EXTERNAL_ADDRESS6")) : relay6;
        if (external6 != null && relay6 == null) {
            throw new IllegalArgumentException("PARLEY_TURN_EXTERNAL_ADDRESS6 needs PARLEY_TURN_RELAY_ADDRESS6");
        }
        String cert = env.get("PARLEY_TURN_TLS_CERT");
        String key = env.get("PARLEY_TURN_TLS_KEY");
        String allowed = env.getOrDefault("PARLEY_TURN_ALLOWED_PEERS", "");
        PeerPolicy.fromAllowList(allowed); // validate early
        String etcd = env.getOrDefault("PARLEY_ETCD_ENDPOINTS", "");
        return new TurnConfig(
                bind,
                intEnv(env, "PARLEY_TURN_PORT", 3478),
                intEnv(env, "PARLEY_TURN_TLS_PORT", 5349),
                cert == null ? null : Path.of(cert),
                key == null ? null : Path.of(key),
                env.getOrDefault("PARLEY_TURN_REALM", "parley"),
                TurnSecrets.parse(env.get("PARLEY_TURN_SECRETS")),
                min, max, relay,
                env.containsKey("PARLEY_TURN_EXTERNAL_ADDRESS") ? addr(env.get("PARLEY_TURN_EXTERNAL_ADDRESS")) : relay,
                relay6,
                external6,
                allowed,
                intEnv(env, "PARLEY_INTERNAL_PORT", 8083),
                env.get("PARLEY_INTERNAL_SECRET"),
                env.getOrDefault("PARLEY_REGION", "local"),
                env.getOrDefault("PARLEY_POD_NAME", "turn-0"),
                etcd.isBlank() ? List.of() : List.of(etcd.split(",")),
                intEnv(env, "PARLEY_LEASE_TTL_SECONDS", 5),
                intEnv(env, "PARLEY_TURN_MAX_ALLOCATIONS", 10_000),
                intEnv(env, "PARLEY_TURN_MAX_ALLOCATIONS_PER_USER", 24),
                Long.parseLong(env.getOrDefault("PARLEY_TURN_MAX_BPS_PER_ALLOCATION", "20000000")),
                intEnv(env, "PARLEY_TURN_EVENT_LOOPS", defaultEventLoops(Runtime.getRuntime().availableProcessors())),
                Duration.ofSeconds(intEnv(env, "PARLEY_TURN_DRAIN_GRACE_SECONDS", 3600)),
                Duration.ofSeconds(intEnv(env, "PARLEY_TURN_NONCE_TTL_SECONDS", 600)),
                // challenges per source (IPv4 address or IPv6 /64) and second; there is no global budget on purpose
                intEnv(env, "PARLEY_TURN_UNAUTH_PER_SOURCE_PER_SECOND", 100),
                // RFC 6062 §5.2/§5.3: a peer data connection without a ConnectionBind is closed after 30 s
                Duration.ofSeconds(Math.max(1, intEnv(env, "PARLEY_TURN_TCP_BIND_TIMEOUT_SECONDS", 30))),
                coalesceMicros(intEnv(env, "PARLEY_TURN_COALESCE_MICROS", DEFAULT_COALESCE_MICROS)));
    }

    /**
     * Event loop wake-up coalescing window (server.CoalescingSelectStrategy): after handling I/O a loop sleeps this
     * long before polling again, so it wakes about once per window under load instead of once per packet. 0 turns it
     * off (Netty's plain blocking epoll_wait). Bounded: it is added delay per hop.
     */
    static int coalesceMicros(int micros) {
        if (micros < 0 || micros > MAX_COALESCE_MICROS) {
            throw new IllegalArgumentException("PARLEY_TURN_COALESCE_MICROS must be 0-" + MAX_COALESCE_MICROS);
        }
        return micros;
    }

    /**
     * Half the CPUs, at least one. About two thirds of a relay's CPU time is the kernel's UDP send/receive work, much
     * of it in softirq context on the same cores; a loop per core leaves each loop waking up for nearly every packet,
     * while fewer, busier loops handle several packets per wake-up and batch their sends (bench/turn/README.md).
     */
    static int defaultEventLoops(int cpus) {
        return Math.max(1, cpus / 2);
    }

    /** True if IPv6 relayed addresses can be allocated (REQUESTED-ADDRESS-FAMILY IPv6). */
    public boolean ipv6Relays() {
        return relayAddress6 != null;
    }

    public boolean tlsEnabled() {
        return tlsCert != null && tlsKey != null; // port 0 picks a free port (tests)
    }

    private static int intEnv(Map<String, String> env, String name, int dflt) {
        String v = env.get(name);
        try {
            return v == null || v.isBlank() ? dflt : Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " is not a number", e);
        }
    }

    private static InetAddress addr(String s) {
        try {
            return InetAddress.getByName(s.trim());
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("cannot resolve " + s, e);
        }
    }

    @Override
    public String toString() {
        return "TurnConfig[bind=" + bindAddress.getHostAddress() + ", port=" + port
                + ", tls=" + (tlsEnabled() ? tlsPort + " cert=" + tlsCert : "off")
                + ", realm=" + realm + ", secrets=" + secrets.size()
                + ", relayPorts=" + relayPortMin + "-" + relayPortMax
                + ", relayAddress=" + relayAddress.getHostAddress()
                + ", externalAddress=" + externalAddress.getHostAddress()
                + (relayAddress6 == null ? ", ipv6Relays=off" : ", relayAddress6=" + relayAddress6.getHostAddress()
                        + ", externalAddress6=" + externalAddress6.getHostAddress())
                + ", allowedPeers=[" + allowedPeers + "], internalPort=" + internalPort
                + ", internalSecret=" + (internalSecret == null ? "none" : "set")
                + ", region=" + region + ", pod=" + podName + ", etcd=" + etcdEndpoints
                + ", maxAllocations=" + maxAllocations + ", perUser=" + maxAllocationsPerUser
                + ", maxBpsPerAllocation=" + maxBitsPerSecondPerAllocation + ", eventLoops=" + eventLoops
                + ", coalesceMicros=" + coalesceMicros
                + ", drainGrace=" + drainGrace + ", nonceTtl=" + nonceTtl
                + ", unauthPerSourcePerSecond=" + unauthenticatedPerSourcePerSecond + "]";
    }
}
