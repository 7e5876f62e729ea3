package dev.parley.turn.tcp;

import dev.parley.turn.metrics.TurnMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

import java.util.concurrent.TimeUnit;

/**
 * The peer data connection's handler, on the allocation's event loop. Before the ConnectionBind it does not read
 * (auto-read off: the kernel buffers what the peer sends and closes the TCP window, as RFC 6062 §5.2/§5.3 ask).
 * Once bound it relays the peer's bytes to the client data connection as they are (no framing) and sees the client's
 * bytes on their way out, so both directions are counted and charged to the allocation's bandwidth budget on the
 * allocation's own loop. Over budget, the sending side stops reading for a moment (TCP cannot drop bytes).
 */
public final class PeerSide extends ChannelDuplexHandler {
    static final long THROTTLE_MILLIS = 50;

    private final PeerConnection pc;
    private final TurnMetrics metrics;

    public PeerSide(PeerConnection pc, TurnMetrics metrics) {
        this.pc = pc;
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Channel data = pc.clientData();
        if (data == null || !(msg instanceof ByteBuf buf)) {
            io.netty.util.ReferenceCountUtil.release(msg);
            return;
        }
        int len = buf.readableBytes();
        TcpAllocation a = pc.allocation();
        if (!a.consume(len)) {
            metrics.quotaRefusal(TurnMetrics.Quota.BANDWIDTH);
            pause(ctx.channel());
        }
        metrics.relayCounters().peerToClient(len);
        data.write(buf, data.voidPromise());
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        Channel data = pc.clientData();
        if (data != null) {
            data.flush();
            if (!data.isWritable()) {
                ctx.channel().config().setAutoRead(false); // resumed by ClientSide when the client drains
            }
        }
    }

    /** Client → peer bytes (written by {@link ClientSide}): counted and charged here, on the allocation's loop. */
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof ByteBuf buf) {
            int len = buf.readableBytes();
            if (!pc.allocation().consume(len)) {
                metrics.quotaRefusal(TurnMetrics.Quota.BANDWIDTH);
                Channel data = pc.clientData();
                if (data != null) {
                    pause(data);
                }
            }
            metrics.relayCounters().clientToPeer(len);
        }
        ctx.write(msg, promise);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        Channel data = pc.clientData();
        if (data != null && ctx.channel().isWritable()) {
            data.config().setAutoRead(true);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        TcpRelay relay = pc.allocation().tcp();
        if (relay != null) {
            relay.remove(pc); // closes the client data connection too
        } else {
            pc.close();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close(); // reset by the peer and the like: the connection ends, the allocation stays
    }

    /** Stops reading from {@code ch} for {@link #THROTTLE_MILLIS}: the bandwidth budget is spent. */
    static void pause(Channel ch) {
        if (ch.config().isAutoRead()) {
            ch.config().setAutoRead(false);
            ch.eventLoop().schedule(() -> ch.config().setAutoRead(true), THROTTLE_MILLIS, TimeUnit.MILLISECONDS);
        }
    }
}
