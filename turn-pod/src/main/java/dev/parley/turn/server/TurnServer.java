package dev.parley.turn.server;

import dev.parley.platform.turn.TurnCredentials;
import dev.parley.turn.allocation.Allocation;
import dev.parley.turn.allocation.AllocationTable;
import dev.parley.turn.allocation.RelayPorts;
import dev.parley.turn.auth.NonceService;
import dev.parley.turn.auth.TurnAuthenticator;
import dev.parley.turn.auth.UnauthenticatedLimiter;
import dev.parley.turn.config.TurnConfig;
import dev.parley.turn.metrics.TurnMetrics;
import dev.parley.turn.peer.PeerPolicy;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.util.concurrent.EventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * The TURN server: UDP listeners (one per event loop with SO_REUSEPORT under epoll), a TCP listener and optionally
 * a TLS listener on their ports, the allocation table, and the per-loop expiry sweep.
 */
public final class TurnServer {
    private static final Logger LOG = LoggerFactory.getLogger(TurnServer.class);
    /** Largest datagram the listener accepts whole; WebRTC keeps packets under ~1300 bytes. */
    static final int MAX_DATAGRAM = 4096;

    private final TurnConfig config;
    private final TurnMetrics metrics;
    private final LongSupplier clock;
    private final Transport transport;
    private final AllocationTable table;
    private final RelayPath relayPath;
    private final TurnRequestHandler requests;
    private final SelfAddresses self;
    private final AtomicBoolean draining = new AtomicBoolean();
    private final List<Channel> listeners = new ArrayList<>();
    private EventLoopGroup group;
    private TlsContextReloader tls;
    private int port;
    private int tlsPort;

    public TurnServer(TurnConfig config, TurnMetrics metrics, LongSupplier clock) {
        this(config, metrics, clock, true);
    }

    public TurnServer(TurnConfig config, TurnMetrics metrics, LongSupplier clock, boolean allowEpoll) {
        this.config = config;
        this.metrics = metrics;
        this.clock = clock;
        this.transport = new Transport(allowEpoll);
        this.table = new AllocationTable(config.maxAllocations(), config.maxAllocationsPerUser(),
                new RelayPorts(config.relayPortMin(), config.relayPortMax()));
        this.self = new SelfAddresses(config.relayAddress(), config.relayAddress6(), config.relayPortMin(), config.relayPortMax(),
                config.internalPort());
        this.relayPath = new RelayPath(PeerPolicy.fromAllowList(config.allowedPeers()), metrics, clock, self);
        TurnAuthenticator auth = new TurnAuthenticator(config.realm(), new TurnCredentials(config.secrets()),
                new NonceService(config.nonceTtl().toSeconds()));
        UnauthenticatedLimiter limiter = new UnauthenticatedLimiter(config.unauthenticatedPerSourcePerSecond());
        RelayBinder binder = new RelayBinder() {
            @Override
            public void bind(Allocation a, int port, boolean dontFragment, java.util.function.Consumer<Channel> onBound,
                             java.util.function.Consumer<Throwable> onFailed) {
                bindRelay(a, port, dontFragment, onBound, onFailed);
            }

            @Override
            public boolean supportsDontFragment() {
                return transport.dontFragment();
            }
        };
        this.requests = new TurnRequestHandler(config, table, auth, limiter, metrics, clock, relayPath, binder,
                draining::get, new TcpAllocations(transport, relayPath, metrics, clock, config.tcpBindTimeout()));
        metrics.gauges(table::size, table::permissionCount, table::channelCount, () -> draining.get() ? 1 : 0);
    }

    /** Binds every listener; on any failure closes what was opened and rethrows (no half-started server). */
    public synchronized TurnServer start() throws InterruptedException {
        try {
            return start0();
        } catch (Exception e) { // incl. bind failures Netty rethrows unchecked
            stop();
            throw e;
        }
    }

    private TurnServer start0() throws InterruptedException {
        int loops = Math.max(1, config.eventLoops());
        group = transport.group(loops, config.coalesceMicros());
        List<EventLoop> eventLoops = new ArrayList<>();
        for (EventExecutor e : group) {
            eventLoops.add((EventLoop) e);
        }
        int udpSockets = transport.epoll ? loops : 1;
        InetSocketAddress bind = null;
        // Port 0 (tests): UDP picks a free port, TCP must get the same number; retry if TCP's is taken.
        for (int attempt = 0; bind == null; attempt++) {
            try {
                bind = bindUdpAndTcp(eventLoops, udpSockets);
            } catch (Exception e) { // Netty rethrows bind failures (IOException) unchecked
                closeListeners();
                if (config.port() != 0 || attempt >= 20 || e instanceof InterruptedException) {
                    throw e;
                }
            }
        }
        port = bind.getPort();
        if (config.tlsEnabled()) {
            tls = new TlsContextReloader(config.tlsCert(), config.tlsKey());
            Channel t = stream(new InetSocketAddress(config.bindAddress(), config.tlsPort()), tls);
            tlsPort = ((InetSocketAddress) t.localAddress()).getPort();
            listeners.add(t);
            group.next().scheduleWithFixedDelay(tls::reloadIfChanged, 5, 5, TimeUnit.SECONDS);
        }
        self.listenerPorts(port, tlsPort);
        // One timer per loop (the first also lapses port reservations): an idle relay wakes each loop once a second.
        for (int i = 0; i < eventLoops.size(); i++) {
            EventLoop loop = eventLoops.get(i);
            boolean first = i == 0;
            int[] policySeen = {relayPath.policy().generation()};
            loop.scheduleWithFixedDelay(() -> {
                long now = clock.getAsLong();
                metrics.allocationsExpired.add(table.sweep(loop, now));
                if (first) {
                    table.sweepReservations(now);
                }
                int g = relayPath.policy().generation();
                if (g != policySeen[0]) { // an SFU left or moved: what allocations hold to it goes too
                    policySeen[0] = g;
                    revalidate(loop);
                }
            }, 1, 1, TimeUnit.SECONDS);
        }
        LOG.info("TURN listening on {} udp/tcp ({} UDP sockets, {}){}", bind, udpSockets,
                transport.epoll ? "epoll" : "nio", tlsPort > 0 ? ", tls " + tlsPort : "");
        return this;
    }

    private void revalidate(EventLoop loop) {
        int dropped = 0;
        for (Allocation a : table.all()) {
            if (a.loop() == loop && !a.closed()) {
                dropped += relayPath.revalidate(a);
            }
        }
        if (dropped > 0) {
            LOG.info("peer policy changed: {} permissions, channels or TCP peer connections dropped", dropped);
        }
    }

    /** The UDP listener sockets (SO_REUSEPORT, one per loop) and the TCP listener on the same port. */
    private InetSocketAddress bindUdpAndTcp(List<EventLoop> eventLoops, int udpSockets) throws InterruptedException {
        InetSocketAddress bind = new InetSocketAddress(config.bindAddress(), config.port());
        for (int i = 0; i < udpSockets; i++) {
            Bootstrap b = new Bootstrap().group(eventLoops.get(i)).channelFactory(transport.datagram(bind.getAddress()))
                    .option(ChannelOption.SO_RCVBUF, 4 << 20).option(ChannelOption.SO_SNDBUF, 4 << 20)
                    .handler(new UdpListenerHandler(requests, relayPath, metrics));
            if (transport.epoll) {
                // several sockets on one port, one per loop; and recvmmsg: up to 16 datagrams per syscall
                b.option(EpollChannelOption.SO_REUSEPORT, true)
                        .option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, MAX_DATAGRAM)
                        .option(ChannelOption.RECVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(MAX_DATAGRAM * 16));
            }
            Channel ch = b.bind(bind).sync().channel();
            listeners.add(ch);
            if (i == 0) {
                bind = (InetSocketAddress) ch.localAddress(); // port 0: the others join the port the first got
            }
        }
        listeners.add(stream(bind, null));
        return bind;
    }

    private void closeListeners() {
        for (Channel c : listeners) {
            c.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        listeners.clear();
    }

    private Channel stream(InetSocketAddress bind, TlsContextReloader tlsCtx) throws InterruptedException {
        ServerBootstrap sb = new ServerBootstrap().group(group).channel(transport.server())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tlsCtx != null) {
                            ch.pipeline().addLast(tlsCtx.current().newHandler(ch.alloc()));
                        }
                        ch.pipeline().addLast(new StreamFrameDecoder(),
                                new StreamConnectionHandler(requests, relayPath, table, metrics));
                    }
                });
        return sb.bind(bind).sync().channel();
    }

    private void bindRelay(Allocation a, int relayPort, boolean dontFragment, java.util.function.Consumer<Channel> onBound,
                           java.util.function.Consumer<Throwable> onFailed) {
        InetSocketAddress relayBind = new InetSocketAddress(a.ipv6() ? config.relayAddress6() : config.relayAddress(), relayPort);
        Bootstrap b = new Bootstrap();
        if (dontFragment && transport.dontFragment()) {
            b.option(a.ipv6() ? Transport.IPV6_MTU_DISCOVER : Transport.IP_MTU_DISCOVER, Transport.PMTUDISC_DO);
        }
        b.group(a.loop()).channelFactory(transport.datagram(relayBind.getAddress()))
                .option(ChannelOption.SO_RCVBUF, 1 << 20).option(ChannelOption.SO_SNDBUF, 1 << 20)
                // one datagram per read: a relay socket usually has one packet waiting, and reading on until EAGAIN
                // costs a second syscall per packet; anything left is reported again by epoll
                .option(ChannelOption.RECVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(MAX_DATAGRAM).maxMessagesPerRead(1))
                .handler(new RelayHandler(a, relayPath))
                .bind(relayBind)
                .addListener((ChannelFuture f) -> {
                    if (f.isSuccess()) {
                        onBound.accept(f.channel());
                    } else {
                        onFailed.accept(f.cause());
                    }
                });
    }

    /** New Allocates get 403 from now on; existing allocations carry on. */
    public void startDraining() {
        draining.set(true);
    }

    public boolean draining() {
        return draining.get();
    }

    public int port() {
        return port;
    }

    public int tlsPort() {
        return tlsPort;
    }

    public AllocationTable table() {
        return table;
    }

    /** The peer policy: the registry feeds it the SFUs' media endpoints. */
    public PeerPolicy peerPolicy() {
        return relayPath.policy();
    }

    public TurnMetrics metrics() {
        return metrics;
    }

    public TurnConfig config() {
        return config;
    }

    public boolean epoll() {
        return transport.epoll;
    }

    /** Test hook: the request handler, to drive it without sockets. */
    public TurnRequestHandler requests() {
        return requests;
    }

    public synchronized void stop() {
        if (group == null) {
            return;
        }
        closeListeners();
        for (Allocation a : table.all()) {
            a.loop().execute(() -> table.close(a));
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        group = null;
    }
}
