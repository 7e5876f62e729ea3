package dev.parley.turn.server;

import dev.parley.turn.link.ClientLink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.DatagramPacket;

import java.net.InetSocketAddress;

/** A client reached over a UDP listener socket (one of the SO_REUSEPORT sockets). */
final class UdpClientLink implements ClientLink {
    private final Channel listener;
    private final InetSocketAddress remote;

    UdpClientLink(Channel listener, InetSocketAddress remote) {
        this.listener = listener;
        this.remote = remote;
    }

    @Override
    public void write(ByteBuf buf) {
        listener.write(new DatagramPacket(buf, remote), listener.voidPromise());
    }

    @Override
    public void flush() {
        listener.flush();
    }

    @Override
    public void flushLater() {
        FlushBatcher.current().flushLater(listener);
    }

    @Override
    public EventLoop eventLoop() {
        return listener.eventLoop();
    }

    @Override
    public ByteBufAllocator alloc() {
        return listener.alloc();
    }

    @Override
    public InetSocketAddress remote() {
        return remote;
    }

    @Override
    public boolean stream() {
        return false;
    }

    @Override
    public void close() {
    }
}
