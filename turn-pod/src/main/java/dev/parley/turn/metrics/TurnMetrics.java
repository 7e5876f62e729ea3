package dev.parley.turn.metrics;

import dev.parley.podmetrics.JvmProcessMetrics;
import io.netty.util.concurrent.FastThreadLocal;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Counters for the relay, exposed in Prometheus text format together with the JVM and process series. The per-packet relay counters are per thread
 * ({@link RelayCounters}, summed when read); the others are {@link LongAdder}s (no lock, no allocation per increment).
 * Labels are fixed enums: never usernames, addresses or anything a client chooses.
 */
public final class TurnMetrics {
    public enum AuthFailure { MISSING_INTEGRITY, BAD_REQUEST, STALE_NONCE, EXPIRED, BAD_INTEGRITY, WRONG_CREDENTIALS, MALFORMED_USERNAME, WRONG_REALM }

    public enum PeerPath { CREATE_PERMISSION, CHANNEL_BIND, SEND, INBOUND, CONNECT, INBOUND_TCP }

    public enum Quota { PER_USER, TOTAL, PORTS, BANDWIDTH }

    /** A counter summed over threads. */
    @FunctionalInterface
    public interface Total {
        long sum();
    }

    private final List<RelayCounters> relayCounters = new CopyOnWriteArrayList<>();
    private final FastThreadLocal<RelayCounters> relayCountersOfThread = new FastThreadLocal<>() {
        @Override
        protected RelayCounters initialValue() {
            RelayCounters c = new RelayCounters();
            relayCounters.add(c); // kept after the thread ends, so totals never go down
            return c;
        }
    };
    public final Total packetsClientToPeer = () -> relayCounters.stream().mapToLong(RelayCounters::packetsClientToPeer).sum();
    public final Total bytesClientToPeer = () -> relayCounters.stream().mapToLong(RelayCounters::bytesClientToPeer).sum();
    public final Total packetsPeerToClient = () -> relayCounters.stream().mapToLong(RelayCounters::packetsPeerToClient).sum();
    public final Total bytesPeerToClient = () -> relayCounters.stream().mapToLong(RelayCounters::bytesPeerToClient).sum();
    public final LongAdder allocationsCreated = new LongAdder();
    public final LongAdder channelBinds = new LongAdder();
    public final LongAdder dataIndications = new LongAdder();
    public final LongAdder allocationsExpired = new LongAdder();
    public final LongAdder unauthenticatedThrottled = new LongAdder();
    public final LongAdder malformedPackets = new LongAdder();
    /** Send indications with DONT-FRAGMENT on an allocation whose relay socket does not set DF. */
    public final LongAdder dontFragmentDropped = new LongAdder();
    public final LongAdder droppedNoPermission = new LongAdder();
    public final LongAdder drainRefusals = new LongAdder();
    /** RFC 6062: peer data connections made (Connect) or accepted (inbound, permitted) on TCP allocations. */
    public final LongAdder tcpPeerConnections = new LongAdder();
    /** RFC 6062: Connect attempts that failed or timed out (447). */
    public final LongAdder tcpConnectFailures = new LongAdder();
    /** RFC 6062: peer data connections closed because no ConnectionBind came in time. */
    public final LongAdder tcpBindTimeouts = new LongAdder();
    private final Map<AuthFailure, LongAdder> authFailures = new EnumMap<>(AuthFailure.class);
    private final Map<PeerPath, LongAdder> deniedPeers = new EnumMap<>(PeerPath.class);
    private final Map<Quota, LongAdder> quotaRefusals = new EnumMap<>(Quota.class);
    private final Map<Integer, LongAdder> errorResponses = new java.util.concurrent.ConcurrentHashMap<>();

    private final JvmProcessMetrics jvm = new JvmProcessMetrics();
    private LongSupplier allocations = () -> 0;
    private LongSupplier permissions = () -> 0;
    private LongSupplier channels = () -> 0;
    private LongSupplier draining = () -> 0;

    public TurnMetrics() {
        for (AuthFailure f : AuthFailure.values()) {
            authFailures.put(f, new LongAdder());
        }
        for (PeerPath p : PeerPath.values()) {
            deniedPeers.put(p, new LongAdder());
        }
        for (Quota q : Quota.values()) {
            quotaRefusals.put(q, new LongAdder());
        }
    }

    /** The relay counters of the calling thread (an event loop); increment them only from that thread. */
    public RelayCounters relayCounters() {
        return relayCountersOfThread.get();
    }

    public void gauges(LongSupplier allocations, LongSupplier permissions, LongSupplier channels, LongSupplier draining) {
        this.allocations = allocations;
        this.permissions = permissions;
        this.channels = channels;
        this.draining = draining;
    }

    public void authFailure(AuthFailure f) {
        authFailures.get(f).increment();
    }

    public long authFailures(AuthFailure f) {
        return authFailures.get(f).sum();
    }

    public void deniedPeer(PeerPath p) {
        deniedPeers.get(p).increment();
    }

    public long deniedPeers(PeerPath p) {
        return deniedPeers.get(p).sum();
    }

    public void quotaRefusal(Quota q) {
        quotaRefusals.get(q).increment();
    }

    public long quotaRefusals(Quota q) {
        return quotaRefusals.get(q).sum();
    }

    public void errorResponse(int code) {
        errorResponses.computeIfAbsent(code, c -> new LongAdder()).increment();
    }

    public String prometheusText() {
        StringBuilder b = new StringBuilder(4096);
        gauge(b, "parley_turn_allocations", "Current allocations", allocations.getAsLong());
        gauge(b, "parley_turn_permissions", "Current permissions", permissions.getAsLong());
        gauge(b, "parley_turn_channels", "Current channel bindings", channels.getAsLong());
        gauge(b, "parley_turn_draining", "1 while draining", draining.getAsLong());
        counter(b, "parley_turn_allocations_created_total", "Allocations created", allocationsCreated.sum());
        counter(b, "parley_turn_allocations_expired_total", "Allocations that expired", allocationsExpired.sum());
        counter(b, "parley_turn_channel_binds_total", "Successful ChannelBind requests", channelBinds.sum());
        counter(b, "parley_turn_tcp_peer_connections_total", "RFC 6062 peer data connections made or accepted",
                tcpPeerConnections.sum());
        counter(b, "parley_turn_tcp_connect_failures_total", "RFC 6062 Connect attempts that failed (447)",
                tcpConnectFailures.sum());
        counter(b, "parley_turn_tcp_bind_timeouts_total", "RFC 6062 peer connections closed for want of a ConnectionBind",
                tcpBindTimeouts.sum());
        counter(b, "parley_turn_data_indications_total", "Peer packets sent to clients as Data indications (no channel)", dataIndications.sum());
        b.append("# HELP parley_turn_relayed_packets_total Relayed packets\n# TYPE parley_turn_relayed_packets_total counter\n");
        b.append("parley_turn_relayed_packets_total{direction=\"client_to_peer\"} ").append(packetsClientToPeer.sum()).append('\n');
        b.append("parley_turn_relayed_packets_total{direction=\"peer_to_client\"} ").append(packetsPeerToClient.sum()).append('\n');
        b.append("# HELP parley_turn_relayed_bytes_total Relayed payload bytes\n# TYPE parley_turn_relayed_bytes_total counter\n");
        b.append("parley_turn_relayed_bytes_total{direction=\"client_to_peer\"} ").append(bytesClientToPeer.sum()).append('\n');
        b.append("parley_turn_relayed_bytes_total{direction=\"peer_to_client\"} ").append(bytesPeerToClient.sum()).append('\n');
        labelled(b, "parley_turn_auth_failures_total", "Authentication failures by reason", "reason", authFailures);
        labelled(b, "parley_turn_denied_peers_total", "Peer addresses refused by the peer policy", "path", deniedPeers);
        labelled(b, "parley_turn_quota_refusals_total", "Requests or packets refused by a quota", "quota", quotaRefusals);
        b.append("# HELP parley_turn_error_responses_total Error responses sent by code\n# TYPE parley_turn_error_responses_total counter\n");
        errorResponses.forEach((code, n) -> b.append("parley_turn_error_responses_total{code=\"").append(code).append("\"} ")
                .append(n.sum()).append('\n'));
        counter(b, "parley_turn_unauthenticated_throttled_total", "401 responses suppressed by the rate limit", unauthenticatedThrottled.sum());
        counter(b, "parley_turn_malformed_packets_total", "Packets dropped as malformed", malformedPackets.sum());
        counter(b, "parley_turn_dont_fragment_dropped_total",
                "Send indications with DONT-FRAGMENT dropped: the allocation's relay socket does not set DF",
                dontFragmentDropped.sum());
        counter(b, "parley_turn_dropped_no_permission_total", "Packets dropped for lack of a permission or channel", droppedNoPermission.sum());
        counter(b, "parley_turn_drain_refusals_total", "Allocate requests refused while draining", drainRefusals.sum());
        jvm.appendTo(b);
        return b.toString();
    }

    private static void gauge(StringBuilder b, String name, String help, long v) {
        b.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(" gauge\n")
                .append(name).append(' ').append(v).append('\n');
    }

    private static void counter(StringBuilder b, String name, String help, long v) {
        b.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(" counter\n")
                .append(name).append(' ').append(v).append('\n');
    }

    private static <E extends Enum<E>> void labelled(StringBuilder b, String name, String help, String label, Map<E, LongAdder> m) {
        b.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(" counter\n");
        m.forEach((k, v) -> b.append(name).append('{').append(label).append("=\"").append(k.name().toLowerCase(java.util.Locale.ROOT))
                .append("\"} ").append(v.sum()).append('\n'));
    }
}
