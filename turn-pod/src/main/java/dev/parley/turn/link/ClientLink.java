package dev.parley.turn.link;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;

import java.net.InetSocketAddress;

/** How the server reaches one client: a UDP 5-tuple on a listener socket, or a TCP/TLS connection. */
public interface ClientLink {
    /** Queues {@code buf} (ownership passes) without flushing. */
    void write(ByteBuf buf);

    void flush();

    /** Flushes at the end of the current I/O batch of this link's event loop (call on that loop). */
    void flushLater();

    default void writeAndFlush(ByteBuf buf) {
        write(buf);
        flush();
    }

    EventLoop eventLoop();

    ByteBufAllocator alloc();

    InetSocketAddress remote();

    /** True for TCP/TLS: ChannelData frames must be padded to 4 bytes. */
    boolean stream();

    /** Closes a stream connection (no-op for UDP). */
    void close();
}
