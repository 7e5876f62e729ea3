package dev.parley.turn.server;

import dev.parley.media.stun.ChannelData;
import dev.parley.media.stun.Stun;
import dev.parley.turn.allocation.Allocation;
import dev.parley.turn.allocation.AllocationTable;
import dev.parley.turn.metrics.TurnMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/** One TCP or TLS client connection, after {@link StreamFrameDecoder}. Closing it deletes its allocation. */
final class StreamConnectionHandler extends ChannelInboundHandlerAdapter {
    private final TurnRequestHandler requests;
    private final RelayPath relayPath;
    private final AllocationTable table;
    private final TurnMetrics metrics;
    private final TurnRequestHandler.Context ctxState = new TurnRequestHandler.Context();
    private StreamClientLink link;

    StreamConnectionHandler(TurnRequestHandler requests, RelayPath relayPath, AllocationTable table, TurnMetrics metrics) {
        this.requests = requests;
        this.relayPath = relayPath;
        this.table = table;
        this.metrics = metrics;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        link = new StreamClientLink(ctx.channel());
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        try {
            if (ChannelData.isLegacyChannelData(frame)) {
                Allocation a = link.allocation;
                if (a == null) {
                    metrics.droppedNoPermission.increment();
                    return;
                }
                Channel relay = relayPath.clientChannelData(a, frame);
                if (relay != null) {
                    FlushBatcher.current().flushLater(relay);
                }
            } else if (Stun.isStun(frame)) {
                Channel relay = requests.handle(link, frame, ctxState);
                if (relay != null) {
                    FlushBatcher.current().flushLater(relay);
                }
                if (StreamFrameDecoder.isConnectionBind(frame) && !ctx.isRemoved()) {
                    // the ConnectionBind did not turn this into a data connection (refused, junk): decode on
                    ctx.pipeline().get(StreamFrameDecoder.class).resume();
                }
            } else {
                metrics.malformedPackets.increment();
            }
        } finally {
            frame.release();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == StreamFrameDecoder.GARBAGE) {
            metrics.malformedPackets.increment();
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (link != null && link.allocation != null) {
            table.close(link.allocation);
            link.allocation = null;
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        metrics.malformedPackets.increment();
        ctx.close();
    }
}
