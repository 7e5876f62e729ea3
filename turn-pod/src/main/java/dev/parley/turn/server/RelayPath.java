package dev.parley.turn.server;

import dev.parley.turn.link.ClientLink;
import dev.parley.media.stun.ChannelData;
import dev.parley.media.stun.StunAttribute;
import dev.parley.media.stun.StunClass;
import dev.parley.media.stun.StunMessageType;
import dev.parley.media.stun.StunMessageWriter;
import dev.parley.media.stun.StunMethod;
import dev.parley.turn.allocation.Allocation;
import dev.parley.turn.metrics.TurnMetrics;
import dev.parley.turn.peer.PeerPolicy;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.socket.DatagramPacket;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * The data path, both directions. Runs on the allocation's event loop. Payloads are never copied into new heap
 * arrays: client→peer forwards a retained slice of the received (pooled, direct) buffer; peer→client writes the
 * 4-byte ChannelData header and the payload into one pooled direct buffer. Flushes are batched per read burst by
 * the callers (channelReadComplete), so epoll can send with sendmmsg.
 */
public final class RelayPath {
    private final PeerPolicy policy;
    private final TurnMetrics metrics;
    private final LongSupplier clock;
    private final SelfAddresses self;

    public RelayPath(PeerPolicy policy, TurnMetrics metrics, LongSupplier clock, SelfAddresses self) {
        this.policy = policy;
        this.metrics = metrics;
        this.clock = clock;
        this.self = self;
    }

    public PeerPolicy policy() {
        return policy;
    }

    /**
     * Client → peer: a ChannelData frame at the reader index of {@code frame}. Returns the relay channel written to
     * (so the caller can flush it after the read burst) or null if dropped. Does not release {@code frame}.
     */
    public Channel clientChannelData(Allocation a, ByteBuf frame) {
        int r = frame.readerIndex();
        if (frame.readableBytes() < ChannelData.HEADER_LENGTH) {
            metrics.malformedPackets.increment();
            return null;
        }
        int channel = frame.getUnsignedShort(r);
        int len = frame.getUnsignedShort(r + 2);
        if (len > frame.readableBytes() - ChannelData.HEADER_LENGTH) {
            metrics.malformedPackets.increment();
            return null;
        }
        long now = clock.getAsLong();
        InetSocketAddress peer = a.channelPeer(channel, now);
        if (peer == null || !a.hasPermission(peer.getAddress(), now)) {
            metrics.droppedNoPermission.increment();
            return null;
        }
        if (!a.consume(len)) {
            metrics.quotaRefusal(TurnMetrics.Quota.BANDWIDTH);
            return null;
        }
        Channel relay = a.relay();
        relay.write(new DatagramPacket(frame.retainedSlice(r + ChannelData.HEADER_LENGTH, len), peer), relay.voidPromise());
        metrics.relayCounters().clientToPeer(len);
        return relay;
    }

    /** Client → peer from a Send indication: the peer was already checked by the caller. */
    public Channel clientSend(Allocation a, InetSocketAddress peer, ByteBuf src, int index, int len) {
        if (!a.consume(len)) {
            metrics.quotaRefusal(TurnMetrics.Quota.BANDWIDTH);
            return null;
        }
        Channel relay = a.relay();
        relay.write(new DatagramPacket(src.retainedSlice(index, len), peer), relay.voidPromise());
        metrics.relayCounters().clientToPeer(len);
        return relay;
    }

    /**
     * Peer → client: a datagram that arrived on the relay socket. Checks the peer policy (again: defence in depth,
     * cheap for IPv4) and the permission, then sends ChannelData if a channel is bound, else a Data indication.
     * Does not flush. Returns true if something was written.
     */
    public boolean peerPacket(Allocation a, DatagramPacket packet, Scratch scratch) {
        InetSocketAddress peer = packet.sender();
        InetAddress ip = peer.getAddress();
        if (!permitsInbound(ip, peer.getPort(), scratch)) {
            metrics.deniedPeer(TurnMetrics.PeerPath.INBOUND);
            return false;
        }
        long now = clock.getAsLong();
        if (!a.hasPermission(ip, now)) {
            metrics.droppedNoPermission.increment();
            return false;
        }
        ByteBuf payload = packet.content();
        int len = payload.readableBytes();
        if (!a.consume(len)) {
            metrics.quotaRefusal(TurnMetrics.Quota.BANDWIDTH);
            return false;
        }
        ClientLink client = a.client();
        int channel = a.channelFor(peer, now);
        ByteBuf out;
        if (channel >= 0) {
            boolean stream = client.stream();
            out = client.alloc().directBuffer(stream ? ChannelData.streamFrameLength(len) : ChannelData.HEADER_LENGTH + len);
            ChannelData.writeHeader(out, channel, len);
            out.writeBytes(payload, payload.readerIndex(), len);
            if (stream) {
                ChannelData.writeStreamPadding(out, len);
            }
        } else {
            out = client.alloc().directBuffer(20 + 24 + 4 + len + 3);
            byte[] txid = scratch.txid;
            ThreadLocalRandom.current().nextBytes(txid);
            scratch.writer.begin(out, StunMessageType.of(StunMethod.DATA, StunClass.INDICATION), txid)
                    .xorAddress(StunAttribute.XOR_PEER_ADDRESS, ip, peer.getPort())
                    .attribute(StunAttribute.DATA, payload, payload.readerIndex(), len);
            metrics.dataIndications.increment();
        }
        client.write(out);
        metrics.relayCounters().peerToClient(len);
        return true;
    }

    /** The peer's address and port must be one the policy opens for UDP (an SFU's media port, an allow-list rule). */
    private boolean permitsInbound(InetAddress ip, int port, Scratch s) {
        if (ip instanceof Inet4Address) {
            // Inet4Address.hashCode() is the address itself: no byte[] copy per packet
            return policy.permitsV4(ip.hashCode(), port, PeerPolicy.Protocol.UDP);
        }
        return policy.permits(ip.getAddress(), port, PeerPolicy.Protocol.UDP, s.canonical);
    }

    /** Per-handler (so per-thread) scratch space that keeps the relay path free of small allocations. */
    public static final class Scratch {
        final byte[] canonical = new byte[4];
        final byte[] txid = new byte[12];
        final StunMessageWriter writer = new StunMessageWriter();
    }

    /**
     * Re-checks what an allocation holds against the current policy (after a registry change): channels and the TCP
     * connections the relay made (Connect) by peer address and port, permissions and accepted TCP connections by
     * address. Runs on the allocation's loop, in the
     * once-a-second sweep, only when the policy changed. Returns how many were dropped or closed.
     */
    public int revalidate(Allocation a) {
        byte[] scratch = new byte[4];
        if (a.tcp() == null) {
            return a.dropPeers(
                    peer -> policy.permits(peer.getAddress().getAddress(), peer.getPort(), PeerPolicy.Protocol.UDP, scratch),
                    ip -> policy.permitsAddress(ip.getAddress(), PeerPolicy.Protocol.UDP, scratch));
        }
        return a.dropPeers(peer -> true, ip -> policy.permitsAddress(ip.getAddress(), PeerPolicy.Protocol.TCP, scratch))
                + a.tcp().closeWhere(pc -> pc.outbound()
                        ? !policy.permits(pc.peer().getAddress().getAddress(), pc.peer().getPort(), PeerPolicy.Protocol.TCP, scratch)
                        : !policy.permitsAddress(pc.peer().getAddress().getAddress(), PeerPolicy.Protocol.TCP, scratch));
    }

    /** True if relaying to {@code peer} would loop back into this server (its listener or relay ports). */
    public boolean isSelf(InetSocketAddress peer) {
        return self.contains(peer);
    }
}
