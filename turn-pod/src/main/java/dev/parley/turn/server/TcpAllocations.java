package dev.parley.turn.server;

import dev.parley.turn.link.ClientLink;
import dev.parley.turn.peer.PeerPolicy;

import dev.parley.media.stun.StunAttribute;
import dev.parley.media.stun.StunClass;
import dev.parley.media.stun.StunMessageType;
import dev.parley.media.stun.StunMessageWriter;
import dev.parley.media.stun.TurnTcp;
import dev.parley.turn.allocation.Allocation;
import dev.parley.turn.metrics.TurnMetrics;
import dev.parley.turn.tcp.ClientSide;
import dev.parley.turn.tcp.ConnectionRegistry;
import dev.parley.turn.tcp.PeerConnection;
import dev.parley.turn.tcp.TcpAllocation;
import dev.parley.turn.tcp.PeerSide;
import dev.parley.turn.tcp.TcpRelay;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.unix.IntegerUnixChannelOption;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * TCP allocations (RFC 6062): the relayed address is a listening TCP socket; Connect opens a connection from it to a
 * peer; a peer connecting to it is announced with a ConnectionAttempt; a ConnectionBind on a new client connection
 * splices the two. Only under epoll: the outgoing connections share the relayed port with the listener
 * (SO_REUSEPORT), so peers see the relayed address whichever side connected.
 */
final class TcpAllocations {
    /** RFC 6062 §5.2: a Connect attempt may take at least 30 s before it is reported as failed (447). */
    static final int CONNECT_TIMEOUT_MILLIS = 30_000;
    /**
     * SO_REUSEPORT (SOL_SOCKET 1, option 15 on Linux) set as a raw option: Netty's epoll TCP client channel has no
     * SO_REUSEPORT option of its own, and the outgoing connection must bind the relayed port its listener holds.
     */
    static final IntegerUnixChannelOption REUSE_PORT = new IntegerUnixChannelOption("SO_REUSEPORT", 1, 15);

    private final Transport transport;
    private final RelayPath relayPath;
    private final TurnMetrics metrics;
    private final LongSupplier clock;
    private final Duration bindTimeout;
    private final ConnectionRegistry registry = new ConnectionRegistry();

    TcpAllocations(Transport transport, RelayPath relayPath, TurnMetrics metrics, LongSupplier clock, Duration bindTimeout) {
        this.transport = transport;
        this.relayPath = relayPath;
        this.metrics = metrics;
        this.clock = clock;
        this.bindTimeout = bindTimeout;
    }

    boolean supported() {
        return transport.epoll;
    }

    ConnectionRegistry registry() {
        return registry;
    }

    /** Opens the listening socket of a TCP allocation on its loop; inbound peers are handled by {@link #accepted}. */
    void listen(Allocation a, InetSocketAddress bind, Consumer<Channel> onBound, Consumer<Throwable> onFailed) {
        a.makeTcp(new TcpRelay(registry));
        new ServerBootstrap().group(a.loop(), a.loop()).channel(EpollServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true).option(EpollChannelOption.SO_REUSEPORT, true)
                .option(ChannelOption.SO_BACKLOG, 16)
                .childOption(ChannelOption.AUTO_READ, false).childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        accepted(a, ch);
                    }
                })
                .bind(bind)
                .addListener((ChannelFuture f) -> {
                    if (f.isSuccess()) {
                        onBound.accept(f.channel());
                    } else {
                        onFailed.accept(f.cause());
                    }
                });
    }

    /**
     * A peer connected to the relayed address (RFC 6062 §5.3): the same peer filtering as every other path, then the
     * allocation must have a permission for the peer's IP; otherwise the connection is closed at once. Accepted: the
     * client gets a ConnectionAttempt and has the bind timeout to send its ConnectionBind.
     */
    private void accepted(Allocation a, SocketChannel ch) {
        InetSocketAddress peer = ch.remoteAddress();
        TcpRelay relay = a.tcp();
        // inbound connections come from any source port: the address must be one the policy opens over TCP
        if (!relayPath.policy().permitsAddress(peer.getAddress().getAddress(), PeerPolicy.Protocol.TCP, new byte[4])) {
            metrics.deniedPeer(TurnMetrics.PeerPath.INBOUND_TCP);
            ch.close();
            return;
        }
        if (a.closed() || !a.hasPermission(peer.getAddress(), clock.getAsLong())) {
            metrics.droppedNoPermission.increment();
            ch.close();
            return;
        }
        if (relay.full()) {
            metrics.quotaRefusal(TurnMetrics.Quota.TOTAL);
            ch.close();
            return;
        }
        PeerConnection pc = new PeerConnection(a, peer, PeerConnection.State.CONNECTING);
        pc.peerChannel(ch);
        ch.pipeline().addLast(new PeerSide(pc, metrics));
        relay.add(pc);
        int id = registry.register(pc);
        pc.pendingBind(scheduleBindTimeout(pc));
        metrics.tcpPeerConnections.increment();
        ByteBuf out = a.client().alloc().ioBuffer(64);
        byte[] txid = new byte[12];
        ThreadLocalRandom.current().nextBytes(txid);
        new StunMessageWriter().begin(out, StunMessageType.of(TurnTcp.CONNECTION_ATTEMPT, StunClass.INDICATION), txid)
                .uint32(TurnTcp.CONNECTION_ID, id & 0xFFFFFFFFL)
                .xorAddress(StunAttribute.XOR_PEER_ADDRESS, peer.getAddress(), peer.getPort())
                .fingerprint();
        a.client().writeAndFlush(out);
    }

    private io.netty.util.concurrent.Future<?> scheduleBindTimeout(PeerConnection pc) {
        TcpAllocation a = pc.allocation();
        return a.loop().schedule(() -> {
            if (pc.state() == PeerConnection.State.PENDING_BIND && registry.claim(pc.id(), pc)) {
                metrics.tcpBindTimeouts.increment();
                a.tcp().remove(pc);
            }
        }, bindTimeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Connect (RFC 6062 §5.2), after the request handler checked the allocation, the peer (policy, family, self) and
     * that no connection to this peer exists: connects from the relayed address; answers with the CONNECTION-ID, or
     * 447 if the connection fails or times out. Runs on the allocation's loop.
     */
    void connect(ClientLink link, Allocation a, InetSocketAddress peer, InetAddress relayBind, byte[] txid, byte[] key) {
        TcpRelay relay = a.tcp();
        PeerConnection pc = new PeerConnection(a, peer, PeerConnection.State.CONNECTING, true);
        relay.add(pc);
        ChannelFuture f = new Bootstrap().group(a.loop()).channel(EpollSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true).option(REUSE_PORT, 1)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MILLIS)
                .option(ChannelOption.AUTO_READ, false).option(ChannelOption.TCP_NODELAY, true)
                .handler(new PeerSide(pc, metrics))
                .connect(peer, new InetSocketAddress(relayBind, a.relayPort()));
        pc.peerChannel(f.channel());
        f.addListener((ChannelFuture done) -> {
            if (!done.isSuccess() || a.closed() || pc.state() == PeerConnection.State.CLOSED) {
                metrics.tcpConnectFailures.increment();
                relay.remove(pc);
                respond(link, TurnTcp.CONNECT, txid, TurnTcp.CONNECTION_TIMEOUT_OR_FAILURE, key, 0);
                return;
            }
            int id = registry.register(pc);
            pc.pendingBind(scheduleBindTimeout(pc));
            metrics.tcpPeerConnections.increment();
            respond(link, TurnTcp.CONNECT, txid, 0, key, id);
        });
    }

    /**
     * ConnectionBind (RFC 6062 §5.4) that the request handler authenticated and for which it {@linkplain
     * ConnectionRegistry#claim claimed} {@code pc}: answers on the data connection, then turns the data connection
     * into a plain byte pipe to the peer connection. Runs on the data connection's loop; the peer side is switched
     * on the allocation's loop.
     */
    void bind(StreamClientLink data, PeerConnection pc, byte[] txid, byte[] key) {
        Channel ch = data.channel();
        ch.config().setAutoRead(false);
        respond(data, TurnTcp.CONNECTION_BIND, txid, 0, key, 0);
        ChannelPipeline p = ch.pipeline();
        p.addLast(new ClientSide(pc));
        p.remove(StreamConnectionHandler.class);
        p.remove(StreamFrameDecoder.class); // bytes it still held after the ConnectionBind go to ClientSide
        TcpAllocation a = pc.allocation();
        a.loop().execute(() -> {
            if (a.closed() || !pc.bind(ch)) {
                ch.close();
                return;
            }
            pc.peerChannel().config().setAutoRead(true);
            ch.config().setAutoRead(true);
        });
    }

    /** A (signed) response to a Connect or ConnectionBind: success (with CONNECTION-ID if {@code id != 0}) or error. */
    private void respond(ClientLink link, int method, byte[] txid, int code, byte[] key, int id) {
        if (code != 0) {
            metrics.errorResponse(code);
        }
        ByteBuf out = link.alloc().ioBuffer(128);
        StunMessageWriter w = new StunMessageWriter().begin(out,
                StunMessageType.of(method, code == 0 ? StunClass.SUCCESS_RESPONSE : StunClass.ERROR_RESPONSE), txid);
        if (code != 0) {
            w.errorCode(code, TurnTcp.reason(code));
        }
        if (id != 0) {
            w.uint32(TurnTcp.CONNECTION_ID, id & 0xFFFFFFFFL);
        }
        w.messageIntegrity(key).fingerprint();
        link.writeAndFlush(out);
    }
}
