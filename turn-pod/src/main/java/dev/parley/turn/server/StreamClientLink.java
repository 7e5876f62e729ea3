package dev.parley.turn.server;

import dev.parley.turn.link.ClientLink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;

import java.net.InetSocketAddress;

/** A client on a TCP or TLS connection; the connection is the 5-tuple, so at most one allocation per link. */
final class StreamClientLink implements ClientLink {
    private final Channel connection;
    /** The connection's allocation (RFC 8656: a TCP/TLS connection is its own 5-tuple); loop-confined. */
    dev.parley.turn.allocation.Allocation allocation;

    private final InetSocketAddress remote;

    StreamClientLink(Channel connection) {
        this(connection, (InetSocketAddress) connection.remoteAddress());
    }

    StreamClientLink(Channel connection, InetSocketAddress remote) {
        this.connection = connection;
        this.remote = remote;
    }

    @Override
    public void write(ByteBuf buf) {
        connection.write(buf, connection.voidPromise());
    }

    @Override
    public void flush() {
        connection.flush();
    }

    @Override
    public void flushLater() {
        FlushBatcher.current().flushLater(connection);
    }

    @Override
    public EventLoop eventLoop() {
        return connection.eventLoop();
    }

    @Override
    public ByteBufAllocator alloc() {
        return connection.alloc();
    }

    @Override
    public InetSocketAddress remote() {
        return remote;
    }

    @Override
    public boolean stream() {
        return true;
    }

    Channel channel() {
        return connection;
    }

    boolean open() {
        return connection.isActive();
    }

    @Override
    public void close() {
        connection.close();
    }
}
