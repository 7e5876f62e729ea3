package dev.parley.turn.tcp;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * The client data connection's handler once its ConnectionBind succeeded (RFC 6062 §5.4): what the client sends goes
 * to the peer data connection as it is. Runs on the data connection's own loop; the peer side counts the bytes on the
 * allocation's loop ({@link PeerSide#write}). Back-pressure both ways: a side whose counterpart cannot take more stops
 * reading until it can.
 */
public final class ClientSide extends ChannelInboundHandlerAdapter {
    private final PeerConnection pc;

    public ClientSide(PeerConnection pc) {
        this.pc = pc;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Channel peer = pc.peerChannel();
        peer.write(msg, peer.voidPromise());
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        Channel peer = pc.peerChannel();
        peer.flush();
        if (!peer.isWritable()) {
            ctx.channel().config().setAutoRead(false); // resumed by PeerSide when the peer drains
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            pc.peerChannel().config().setAutoRead(true);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        Channel peer = pc.peerChannel();
        peer.eventLoop().execute(() -> {
            TcpRelay relay = pc.allocation().tcp();
            if (relay != null) {
                relay.remove(pc);
            } else {
                pc.close();
            }
        });
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
