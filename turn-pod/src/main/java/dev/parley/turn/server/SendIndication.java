package dev.parley.turn.server;

import dev.parley.media.stun.StunAttribute;
import dev.parley.media.stun.StunMessage;
import dev.parley.media.stun.StunParseException;
import dev.parley.turn.allocation.Allocation;
import dev.parley.turn.link.ClientLink;
import dev.parley.turn.metrics.TurnMetrics;
import dev.parley.turn.metrics.TurnMetrics.PeerPath;
import io.netty.channel.Channel;

import java.net.InetSocketAddress;
import java.util.function.LongSupplier;

/**
 * Send indication (RFC 8656 §10.2), a data path: the DATA value goes to the peer as it is, or the indication is
 * dropped and counted (indications get no answer). Runs on the allocation's loop, without locks.
 */
final class SendIndication {
    private final ClientAllocations allocations;
    private final PeerChecks peers;
    private final RelayPath relayPath;
    private final TurnMetrics metrics;
    private final LongSupplier clock;

    SendIndication(ClientAllocations allocations, PeerChecks peers, RelayPath relayPath, TurnMetrics metrics,
                   LongSupplier clock) {
        this.allocations = allocations;
        this.peers = peers;
        this.relayPath = relayPath;
        this.metrics = metrics;
        this.clock = clock;
    }

    /** Relays the DATA; returns the relay channel written to (the caller flushes after the read burst), or null. */
    Channel handle(ClientLink link, StunMessage m, TurnRequestHandler.Context ctx) throws StunParseException {
        Allocation alloc = allocations.of(link);
        if (alloc == null || alloc.tcp() != null) { // a TCP allocation relays over its data connections only
            metrics.droppedNoPermission.increment();
            return null;
        }
        int data = m.find(StunAttribute.DATA);
        if (data < 0 || !m.xorAddress(StunAttribute.XOR_PEER_ADDRESS, ctx.addr)) {
            metrics.malformedPackets.increment();
            return null;
        }
        InetSocketAddress peer = ctx.addr.toSocketAddress();
        if (peers.check(alloc, ctx.addr, peer, PeerPath.SEND, ctx.scratch) != 0) {
            return null;
        }
        if (!alloc.hasPermission(peer.getAddress(), clock.getAsLong())) {
            metrics.droppedNoPermission.increment();
            return null;
        }
        if (!alloc.dontFragment() && m.find(StunAttribute.DONT_FRAGMENT) >= 0) {
            // RFC 8656 §11.2: DF asked for on a relay socket that does not set it (allocated without DONT-FRAGMENT,
            // or a transport without DF): discard rather than send a datagram that may be fragmented
            metrics.dontFragmentDropped.increment();
            return null;
        }
        return relayPath.clientSend(alloc, peer, m.buffer(), m.valueOffset(data), m.valueLength(data));
    }
}
