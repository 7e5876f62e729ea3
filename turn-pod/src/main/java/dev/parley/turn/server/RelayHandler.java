package dev.parley.turn.server;

import dev.parley.turn.allocation.Allocation;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;

/** The relay socket of one allocation: datagrams from peers, relayed to the client, flushed once per I/O batch. */
final class RelayHandler extends ChannelInboundHandlerAdapter {
    private final Allocation allocation;
    private final RelayPath relayPath;
    private final RelayPath.Scratch scratch = new RelayPath.Scratch();

    RelayHandler(Allocation allocation, RelayPath relayPath) {
        this.allocation = allocation;
        this.relayPath = relayPath;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        DatagramPacket p = (DatagramPacket) msg;
        try {
            if (!allocation.closed() && relayPath.peerPacket(allocation, p, scratch)) {
                allocation.client().flushLater();
            }
        } finally {
            p.release();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // ICMP port unreachable from a peer and similar: not fatal for the allocation
    }
}
