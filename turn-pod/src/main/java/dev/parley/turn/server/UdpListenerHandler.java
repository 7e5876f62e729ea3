package dev.parley.turn.server;

import dev.parley.media.stun.ChannelData;
import dev.parley.media.stun.Stun;
import dev.parley.turn.allocation.Allocation;
import dev.parley.turn.metrics.TurnMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;

import java.net.InetSocketAddress;

/**
 * One UDP listener socket (one of several bound with SO_REUSEPORT, each on its own event loop). ChannelData goes
 * straight to the relay; STUN goes to the request handler. Relay writes are flushed once per I/O batch
 * ({@link FlushBatcher}).
 */
final class UdpListenerHandler extends ChannelInboundHandlerAdapter {
    private final TurnRequestHandler requests;
    private final RelayPath relayPath;
    private final TurnMetrics metrics;
    private final TurnRequestHandler.Context ctxState = new TurnRequestHandler.Context();

    UdpListenerHandler(TurnRequestHandler requests, RelayPath relayPath, TurnMetrics metrics) {
        this.requests = requests;
        this.relayPath = relayPath;
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        DatagramPacket p = (DatagramPacket) msg;
        try {
            ByteBuf c = p.content();
            InetSocketAddress sender = p.sender();
            if (ChannelData.isLegacyChannelData(c)) {
                Allocation a = requests.udpAllocation(sender);
                if (a == null) {
                    metrics.droppedNoPermission.increment();
                    return;
                }
                if (a.loop() != ctx.channel().eventLoop()) {
                    // The kernel moved this 5-tuple to another SO_REUSEPORT socket (sockets were added or removed):
                    // hand the packet to the allocation's own loop instead of touching its state from here.
                    c.retain();
                    a.loop().execute(() -> {
                        try {
                            markDirty(relayPath.clientChannelData(a, c));
                        } finally {
                            c.release();
                        }
                    });
                    return;
                }
                markDirty(relayPath.clientChannelData(a, c));
            } else if (Stun.isStun(c)) {
                markDirty(requests.handle(new UdpClientLink(ctx.channel(), sender), c, ctxState));
            } else {
                metrics.malformedPackets.increment();
            }
        } finally {
            p.release();
        }
    }

    private static void markDirty(Channel relay) {
        if (relay != null) {
            FlushBatcher.current().flushLater(relay);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush(); // responses to requests; relayed packets are flushed by the FlushBatcher
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // ICMP errors and the like on a shared UDP socket must not close it
        metrics.malformedPackets.increment();
    }
}
