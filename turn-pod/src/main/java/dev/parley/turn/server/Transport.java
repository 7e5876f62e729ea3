package dev.parley.turn.server;

import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.unix.IntegerUnixChannelOption;

import java.net.Inet4Address;
import java.net.InetAddress;

/** Native epoll when the platform has it (SO_REUSEPORT, sendmmsg), NIO otherwise (then one UDP listener). */
final class Transport {
    final boolean epoll;

    Transport(boolean allowEpoll) {
        this.epoll = allowEpoll && Epoll.isAvailable();
    }

    /** {@code coalesceMicros} > 0: epoll loops coalesce wake-ups ({@link CoalescingSelectStrategy}); NIO never does. */
    EventLoopGroup group(int threads, int coalesceMicros) {
        IoHandlerFactory f = !epoll ? NioIoHandler.newFactory()
                : coalesceMicros <= 0 ? EpollIoHandler.newFactory()
                : EpollIoHandler.newFactory(0, () -> new CoalescingSelectStrategy(coalesceMicros * 1_000L));
        return new MultiThreadIoEventLoopGroup(threads, f);
    }

    /**
     * UDP sockets of the family of the address they bind: an IPv4 address gets an AF_INET socket, not Netty's default
     * dual-stack AF_INET6 one, whose every send and receive goes through the kernel's IPv6 UDP layer and IPv4-mapped
     * address conversions (measurable per packet on a relay).
     */
    ChannelFactory<DatagramChannel> datagram(InetAddress bindAddress) {
        SocketProtocolFamily family = bindAddress instanceof Inet4Address ? SocketProtocolFamily.INET : SocketProtocolFamily.INET6;
        return epoll ? () -> new EpollDatagramChannel(family) : () -> new NioDatagramChannel(family);
    }

    /**
     * DONT-FRAGMENT (RFC 8656 §7.2): {@code IP_MTU_DISCOVER} / {@code IPV6_MTU_DISCOVER} = {@code IP_PMTUDISC_DO} on a
     * relay socket makes the kernel set DF on every datagram and refuse (EMSGSIZE) rather than fragment one above the
     * path MTU. Only the epoll transport can set raw socket options; under NIO the attribute stays unsupported (420).
     */
    static final IntegerUnixChannelOption IP_MTU_DISCOVER = new IntegerUnixChannelOption("IP_MTU_DISCOVER", 0, 10);
    static final IntegerUnixChannelOption IPV6_MTU_DISCOVER = new IntegerUnixChannelOption("IPV6_MTU_DISCOVER", 41, 23);
    static final int PMTUDISC_DO = 2;

    boolean dontFragment() {
        return epoll;
    }

    Class<? extends ServerSocketChannel> server() {
        return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
