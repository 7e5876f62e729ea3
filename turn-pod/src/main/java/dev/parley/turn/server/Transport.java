package dev.parley.turn.server;

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
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;

/** Native epoll when the platform has it (SO_REUSEPORT, sendmmsg), NIO otherwise (then one UDP listener). */
final class Transport {
    final boolean epoll;

    Transport(boolean allowEpoll) {
        this.epoll = allowEpoll && Epoll.isAvailable();
    }

    EventLoopGroup group(int threads) {
        IoHandlerFactory f = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(threads, f);
    }

    Class<? extends DatagramChannel> datagram() {
        return epoll ? EpollDatagramChannel.class : NioDatagramChannel.class;
    }

    Class<? extends ServerSocketChannel> server() {
        return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
