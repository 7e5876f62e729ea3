package dev.parley.turn.server;

import dev.parley.media.stun.StunErrorCode;
import dev.parley.media.stun.StunMessage;
import dev.parley.turn.allocation.Allocation;
import dev.parley.turn.metrics.TurnMetrics;
import dev.parley.turn.metrics.TurnMetrics.PeerPath;
import dev.parley.turn.peer.PeerPolicy;

import java.net.InetSocketAddress;

/** The peer checks every path shares (CreatePermission, ChannelBind, Send, Connect); denials are counted and logged. */
final class PeerChecks {
    private final RelayPath relayPath;
    private final TurnMetrics metrics;
    private final DeniedPeerLog deniedLog = new DeniedPeerLog();

    PeerChecks(RelayPath relayPath, TurnMetrics metrics) {
        this.relayPath = relayPath;
        this.metrics = metrics;
    }

    /**
     * Policy on address <em>and port</em> (403: an SFU's published media port for the relay's protocol, or an
     * allow-list rule), this server's own addresses (403), family (443: the peer must have the relayed address's
     * family; IPv4-mapped spellings count as IPv4). A CreatePermission on a TCP allocation admits inbound
     * connections from any source port, so there the address alone is judged. Returns 0 if the peer is acceptable.
     */
    int check(Allocation alloc, StunMessage.StunAddress addr, InetSocketAddress withPort, PeerPath path, byte[] scratch) {
        PeerPolicy policy = relayPath.policy();
        PeerPolicy.Protocol protocol = alloc.tcp() != null ? PeerPolicy.Protocol.TCP : PeerPolicy.Protocol.UDP;
        boolean permitted = path == PeerPath.CREATE_PERMISSION && alloc.tcp() != null
                ? policy.permitsAddress(addr.address(), protocol, scratch)
                : policy.permits(addr.address(), addr.port, protocol, scratch);
        if (!permitted) {
            metrics.deniedPeer(path);
            deniedLog.denied(path, addr, alloc);
            return StunErrorCode.FORBIDDEN;
        }
        InetSocketAddress sa = withPort != null ? withPort : addr.toSocketAddress();
        if ((sa.getAddress() instanceof java.net.Inet6Address) != alloc.ipv6()) {
            return StunErrorCode.PEER_ADDRESS_FAMILY_MISMATCH;
        }
        if (withPort != null && relayPath.isSelf(sa)) {
            metrics.deniedPeer(path);
            deniedLog.denied(path, addr, alloc);
            return StunErrorCode.FORBIDDEN;
        }
        return 0;
    }
}
