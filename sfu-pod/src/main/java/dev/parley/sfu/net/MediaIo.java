package dev.parley.sfu.net;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One media worker's sockets: one UDP port shared by every ICE-lite transport of the worker and one ICE-TCP
 * passive port (RFC 6544, RFC 4571 framing). Everything runs on the worker's single event loop so routing state
 * needs no locks; writes are batched and flushed at the end of each read burst, or earlier once the oldest unflushed
 * write waited {@link #flushAfterNanos} (a burst of publishers' frames fanned out to many subscribers takes
 * milliseconds to route, and its first packets should not wait for its last). Nothing here is shared with another
 * worker.
 */
public final class MediaIo implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MediaIo.class);
    /** Bound of one TCP path's send queue: past it packets are dropped (the router drops to a keyframe). */
    public static final int TCP_HIGH_WATER = 512 * 1024;
    /** Bound of the shared UDP socket's user-space send queue. */
    public static final int UDP_HIGH_WATER = 8 * 1024 * 1024;
    /** Largest datagram read off the UDP socket (longer ones are truncated and then fail authentication). */
    static final int MAX_DATAGRAM = 2048;
    /** Datagrams one recvmmsg(2) may return: a burst of publishers' packets costs one syscall, not one each. */
    static final int RECV_BATCH = 16;
    /** System property: longest a routed packet waits in user space for the rest of its read burst, µs (0: whole burst). */
    public static final String FLUSH_AFTER_PROPERTY = "parley.sfu.flushAfterMicros";
    static final long DEFAULT_FLUSH_AFTER_MICROS = 200;

    private final EventLoopGroup group;
    private final EventLoopGroup acceptGroup;
    private final PacketHandler handler;
    private Channel udp;
    private Channel tcp;
    private final Map<SocketAddress, UdpPath> udpPaths = new HashMap<>();
    private final List<Channel> dirty = new ArrayList<>();
    private byte[] rx = new byte[2048];
    private final long flushAfterNanos;
    /** System.nanoTime() at which the oldest packet whose output is not flushed yet was read. */
    private long pendingSince;

    public MediaIo(PacketHandler handler) { this(handler, "media"); }

    /** @param name names the threads ({@code name} and {@code name-accept}), so per-thread CPU shows each worker */
    public MediaIo(PacketHandler handler, String name) { this(handler, name, flushAfterNanos()); }

    MediaIo(PacketHandler handler, String name, long flushAfterNanos) {
        this.handler = handler;
        this.flushAfterNanos = flushAfterNanos;
        boolean epoll = Epoll.isAvailable();
        this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(name),
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        this.acceptGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(name + "-accept"),
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        LOG.info("media I/O {} on {}", name, epoll ? "epoll" : "nio");
    }

    public EventLoop loop() { return group.next(); }

    public void bind(String address, int udpPort, int tcpPort) throws InterruptedException {
        boolean epoll = Epoll.isAvailable();
        Class<? extends DatagramChannel> dc = epoll ? EpollDatagramChannel.class : NioDatagramChannel.class;
        Class<? extends ServerSocketChannel> sc = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        Bootstrap ub = new Bootstrap().group(group).channel(dc)
                .option(ChannelOption.SO_RCVBUF, 4 << 20).option(ChannelOption.SO_SNDBUF, 4 << 20)
                // pooled direct buffers expose their memory address, so sendmmsg needs no ByteBuffer view per packet
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT);
        if (epoll) {
            // recvmmsg: one read buffer split into RECV_BATCH datagram slots (Netty hands each back as a slice)
            ub.option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, MAX_DATAGRAM)
                    .option(ChannelOption.RECVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(MAX_DATAGRAM * RECV_BATCH));
        }
        udp = ub
                // bound of what waits in user space when the kernel send buffer is full; past it packets drop
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(UDP_HIGH_WATER / 2, UDP_HIGH_WATER))
                .handler(new UdpInbound())
                .bind(address, udpPort).sync().channel();
        tcp = new ServerBootstrap().group(acceptGroup, group).channel(sc)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(TCP_HIGH_WATER / 2, TCP_HIGH_WATER))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(0xFFFF + 2, 0, 2, 0, 2), new TcpInbound(new TcpPath(ch)));
                    }
                })
                .bind(address, tcpPort).sync().channel();
    }

    public int udpPort() { return ((InetSocketAddress) udp.localAddress()).getPort(); }
    public int tcpPort() { return ((InetSocketAddress) tcp.localAddress()).getPort(); }

    /** Flushes every channel written since the last flush. Media thread only. */
    public void flush() {
        for (int i = 0; i < dirty.size(); i++) dirty.get(i).flush();
        dirty.clear();
    }

    private void markDirty(Channel ch) {
        if (!dirty.contains(ch)) dirty.add(ch);
    }

    static long flushAfterNanos() {
        long micros = Long.getLong(FLUSH_AFTER_PROPERTY, DEFAULT_FLUSH_AFTER_MICROS);
        return micros <= 0 ? Long.MAX_VALUE : micros * 1_000;
    }

    /** Before a read packet is routed: if nothing waits unflushed, its output will be the oldest. */
    private void beforeRoute(long readAt) {
        if (dirty.isEmpty()) pendingSince = readAt;
    }

    /** After a read packet is routed: flushes mid-burst once the oldest unflushed write waited long enough. */
    private void afterRoute() {
        if (!dirty.isEmpty() && System.nanoTime() - pendingSince >= flushAfterNanos) flush();
    }

    private byte[] rx(int len) {
        if (rx.length < len) rx = new byte[len];
        return rx;
    }

    @Override
    public void close() {
        if (udp != null) udp.close();
        if (tcp != null) tcp.close();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
        acceptGroup.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
    }

    private final class UdpInbound extends SimpleChannelInboundHandler<DatagramPacket> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket p) {
            ByteBuf c = p.content();
            int len = c.readableBytes();
            byte[] b = rx(len);
            c.getBytes(c.readerIndex(), b, 0, len);
            UdpPath path = udpPaths.get(p.sender());
            if (path == null) {
                if (udpPaths.size() > 100_000) udpPaths.clear(); // bound memory under address spraying
                path = new UdpPath(p.sender());
                udpPaths.put(p.sender(), path);
            }
            long now = System.nanoTime();
            beforeRoute(now);
            handler.onPacket(b, 0, len, path, now);
            afterRoute();
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) { flush(); }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) { LOG.debug("udp: {}", cause.toString()); }
    }

    private final class TcpInbound extends ChannelInboundHandlerAdapter {
        private final TcpPath path;

        TcpInbound(TcpPath path) { this.path = path; }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf c = (ByteBuf) msg;
            try {
                int len = c.readableBytes();
                byte[] b = rx(len);
                c.getBytes(c.readerIndex(), b, 0, len);
                long now = System.nanoTime();
                beforeRoute(now);
                handler.onPacket(b, 0, len, path, now);
                afterRoute();
            } finally {
                c.release();
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) { flush(); }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) { handler.onPathClosed(path); }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("ice-tcp: {}", cause.toString());
            ctx.close();
        }
    }

    /** A path to {@code remote} from the UDP port (relays between SFUs: no ICE check binds it). */
    public PacketPath udpPath(InetSocketAddress remote) { return new UdpPath(remote); }

    /** A remote UDP address on the shared port. Identity is the address (one object per address). */
    final class UdpPath implements PacketPath {
        private final InetSocketAddress remote;

        UdpPath(InetSocketAddress remote) { this.remote = remote; }

        @Override
        public boolean send(byte[] b, int off, int len) {
            ByteBuf buf = udp.alloc().directBuffer(len);
            buf.writeBytes(b, off, len);
            udp.write(new DatagramPacket(buf, remote), udp.voidPromise());
            markDirty(udp);
            return true;
        }

        @Override public boolean writable() { return udp.isWritable(); }
        @Override public boolean isTcp() { return false; }
        @Override public SocketAddress remote() { return remote; }
        @Override public void close() { }
        @Override public String toString() { return "udp:" + remote; }
    }

    /** One ICE-TCP connection. */
    final class TcpPath implements PacketPath {
        private final Channel ch;

        TcpPath(Channel ch) { this.ch = ch; }

        @Override
        public boolean send(byte[] b, int off, int len) {
            if (!ch.isActive() || !ch.isWritable()) return false;
            ByteBuf buf = ch.alloc().directBuffer(len + 2);
            buf.writeShort(len);
            buf.writeBytes(b, off, len);
            ch.write(buf, ch.voidPromise());
            markDirty(ch);
            return true;
        }

        @Override public boolean writable() { return ch.isWritable(); }
        @Override public boolean isTcp() { return true; }
        @Override public SocketAddress remote() { return ch.remoteAddress(); }
        @Override public void close() { ch.close(); }
        @Override public String toString() { return "tcp:" + ch.remoteAddress(); }
    }
}
