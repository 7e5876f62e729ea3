package dev.parley.turn.server;

import dev.parley.turn.link.ClientLink;
import dev.parley.media.stun.ChannelData;
import dev.parley.media.stun.StunAttribute;
import dev.parley.media.stun.StunClass;
import dev.parley.media.stun.StunErrorCode;
import dev.parley.media.stun.StunMessage;
import dev.parley.media.stun.StunMessageType;
import dev.parley.media.stun.StunMessageWriter;
import dev.parley.media.stun.StunMethod;
import dev.parley.media.stun.StunParseException;
import dev.parley.media.stun.TurnTcp;
import dev.parley.turn.allocation.Allocation;
import dev.parley.turn.allocation.AllocationTable;
import dev.parley.turn.auth.TurnAuthenticator;
import dev.parley.turn.auth.UnauthenticatedLimiter;
import dev.parley.turn.config.TurnConfig;
import dev.parley.turn.metrics.TurnMetrics;
import dev.parley.turn.metrics.TurnMetrics.PeerPath;
import dev.parley.turn.peer.PeerPolicy;
import dev.parley.turn.tcp.PeerConnection;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * TURN control plane (RFC 8656 §7–§11): Allocate, Refresh, CreatePermission, ChannelBind and the Send indication,
 * plus STUN Binding. Stateless itself (shared by all loops); each call runs on the client's event loop, and every
 * allocation it touches belongs to that loop.
 *
 * <p>Order of checks for requests: parse → unknown comprehension-required attributes (420) → authentication (401 /
 * 438 / 400) → allocation lookup (437) → username match (441) → method-specific checks.
 */
public final class TurnRequestHandler {
    private static final Logger LOG = LoggerFactory.getLogger(TurnRequestHandler.class);
    private static final String SOFTWARE = "Parley TURN";
    private static final int UDP = 17;
    /** REQUESTED-ADDRESS-FAMILY values (RFC 8656 §18.11). */
    private static final int FAMILY_IPV4 = 0x01;
    private static final int FAMILY_IPV6 = 0x02;
    /** How long the odd port of an EVEN-PORT R=1 allocation stays reserved (RFC 8656 §7.2 suggests ~30 s). */
    private static final long RESERVATION_MILLIS = 30_000;

    private final TurnConfig config;
    private final AllocationTable table;
    private final TurnAuthenticator auth;
    private final UnauthenticatedLimiter limiter;
    private final TurnMetrics metrics;
    private final LongSupplier clock;
    private final RelayPath relayPath;
    private final RelayBinder binder;
    private final BooleanSupplier draining;
    private final TcpAllocations tcp;
    private final DeniedPeerLog deniedLog = new DeniedPeerLog();

    TurnRequestHandler(TurnConfig config, AllocationTable table, TurnAuthenticator auth,
                       UnauthenticatedLimiter limiter, TurnMetrics metrics, LongSupplier clock,
                       RelayPath relayPath, RelayBinder binder, BooleanSupplier draining, TcpAllocations tcp) {
        this.tcp = tcp;
        this.config = config;
        this.table = table;
        this.auth = auth;
        this.limiter = limiter;
        this.metrics = metrics;
        this.clock = clock;
        this.relayPath = relayPath;
        this.binder = binder;
        this.draining = draining;
    }

    /** Per-thread working state of the handler (message view, writer, scratch). */
    public static final class Context {
        final StunMessage view = new StunMessage();
        final StunMessageWriter writer = new StunMessageWriter();
        final StunMessage.StunAddress addr = new StunMessage.StunAddress();
        final byte[] scratch = new byte[4];
    }

    /** The UDP allocation of a client source address (hot path: no allocation). */
    public Allocation udpAllocation(InetSocketAddress client) {
        return table.udp(client);
    }

    /** The allocation of this client link (UDP: by source address; stream: held by the connection), or null. */
    public Allocation lookup(ClientLink link) {
        if (link instanceof StreamClientLink s) {
            return s.allocation;
        }
        return table.udp(link.remote());
    }

    /**
     * Handles one STUN message at the reader index of {@code buf} (exactly its readable bytes). Returns the relay
     * channel written to for a Send indication (so the caller can flush after the read burst), else null. Does not
     * release {@code buf}.
     */
    public Channel handle(ClientLink link, ByteBuf buf, Context ctx) {
        StunMessage m;
        try {
            m = ctx.view.wrap(buf);
        } catch (StunParseException e) {
            metrics.malformedPackets.increment();
            return null;
        }
        StunClass cls = m.messageClass();
        if (cls == StunClass.SUCCESS_RESPONSE || cls == StunClass.ERROR_RESPONSE) {
            return null; // we never send requests: responses are junk
        }
        try {
            if (cls == StunClass.INDICATION) {
                return m.method() == StunMethod.SEND ? send(link, m, ctx) : null;
            }
            int unknown = m.firstUnknownRequired(m.method() == StunMethod.ALLOCATE && binder.supportsDontFragment()
                    ? TurnRequestHandler::knownInAllocateWithDf : TurnRequestHandler::known);
            if (unknown >= 0) {
                error(link, m, ctx, StunErrorCode.UNKNOWN_ATTRIBUTE, null, unknown);
                return null;
            }
            switch (m.method()) {
                case StunMethod.BINDING -> binding(link, m, ctx);
                case StunMethod.ALLOCATE -> allocate(link, m, ctx);
                case StunMethod.REFRESH -> refresh(link, m, ctx);
                case StunMethod.CREATE_PERMISSION -> createPermission(link, m, ctx);
                case StunMethod.CHANNEL_BIND -> channelBind(link, m, ctx);
                case TurnTcp.CONNECT -> connect(link, m, ctx);
                case TurnTcp.CONNECTION_BIND -> connectionBind(link, m, ctx);
                default -> error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: unknown method", null, -1);
            }
        } catch (StunParseException e) {
            metrics.malformedPackets.increment();
            if (m.isRequest()) {
                error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: " + e.getMessage(), null, -1);
            }
        }
        return null;
    }

    private static boolean known(int type) {
        return switch (type) {
            case StunAttribute.USERNAME, StunAttribute.MESSAGE_INTEGRITY, StunAttribute.MESSAGE_INTEGRITY_SHA256,
                 StunAttribute.REALM, StunAttribute.NONCE, StunAttribute.LIFETIME, StunAttribute.XOR_PEER_ADDRESS,
                 StunAttribute.DATA, StunAttribute.REQUESTED_TRANSPORT, StunAttribute.REQUESTED_ADDRESS_FAMILY,
                 StunAttribute.EVEN_PORT, StunAttribute.CHANNEL_NUMBER, StunAttribute.RESERVATION_TOKEN,
                 StunAttribute.ERROR_CODE, StunAttribute.PRIORITY, StunAttribute.USE_CANDIDATE,
                 StunAttribute.XOR_MAPPED_ADDRESS, TurnTcp.CONNECTION_ID -> true;
            default -> false; // incl. DONT-FRAGMENT where the transport cannot set DF (NIO): 420, as RFC 8656 §7.2 asks
        };
    }

    /** Allocate when relay sockets can set DF (epoll): DONT-FRAGMENT is understood too. */
    private static boolean knownInAllocateWithDf(int type) {
        return type == StunAttribute.DONT_FRAGMENT || known(type);
    }

    // ---------------------------------------------------------------- Binding

    private void binding(ClientLink link, StunMessage m, Context ctx) {
        ByteBuf out = link.alloc().ioBuffer(64);
        InetSocketAddress r = link.remote();
        ctx.writer.begin(out, StunMessageType.of(StunMethod.BINDING, StunClass.SUCCESS_RESPONSE), m)
                .xorAddress(StunAttribute.XOR_MAPPED_ADDRESS, r.getAddress(), r.getPort())
                .fingerprint();
        link.writeAndFlush(out);
    }

    // ---------------------------------------------------------------- authentication

    /** Authenticates; on failure sends the error response and returns null. */
    private TurnAuthenticator.Result authenticate(ClientLink link, StunMessage m, Context ctx) {
        TurnAuthenticator.Result r = auth.authenticate(m, TurnAuthenticator.addressBytes(link.remote()), clock.getAsLong());
        if (r.ok()) {
            return r;
        }
        metrics.authFailure(r.failure());
        switch (r.outcome()) {
            case BAD_REQUEST -> error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: USERNAME, REALM and NONCE required", null, -1);
            case STALE_NONCE -> challenge(link, m, ctx, StunErrorCode.STALE_NONCE);
            default -> challenge(link, m, ctx, StunErrorCode.UNAUTHENTICATED);
        }
        return null;
    }

    /**
     * 401/438 with REALM and a fresh stateless NONCE: costs one HMAC and stores nothing. Limited per source only (a
     * flooding source loses its own answers, never anyone else's), against reflection.
     */
    private void challenge(ClientLink link, StunMessage m, Context ctx, int code) {
        InetSocketAddress remote = link.remote();
        long now = clock.getAsLong();
        if (!limiter.tryAcquire(UnauthenticatedLimiter.sourceKey(remote.getAddress()), now / 1000)) {
            metrics.unauthenticatedThrottled.increment();
            return;
        }
        metrics.errorResponse(code);
        ByteBuf out = link.alloc().ioBuffer(128);
        ctx.writer.begin(out, StunMessageType.of(m.method(), StunClass.ERROR_RESPONSE), m)
                .errorCode(code, null)
                .string(StunAttribute.REALM, auth.realm())
                .string(StunAttribute.NONCE, auth.newNonce(TurnAuthenticator.addressBytes(remote), now))
                .string(StunAttribute.SOFTWARE, SOFTWARE)
                .fingerprint();
        link.writeAndFlush(out);
    }

    private void error(ClientLink link, StunMessage m, Context ctx, int code, byte[] key, int unknownAttr) {
        error(link, m, ctx, code, null, key, unknownAttr);
    }

    private void error(ClientLink link, StunMessage m, Context ctx, int code, String reason, byte[] key, int unknownAttr) {
        if (!m.isRequest()) {
            return;
        }
        metrics.errorResponse(code);
        ByteBuf out = link.alloc().ioBuffer(128);
        StunMessageWriter w = ctx.writer.begin(out, StunMessageType.of(m.method(), StunClass.ERROR_RESPONSE), m)
                .errorCode(code, reason);
        if (unknownAttr >= 0) {
            w.unknownAttributes(unknownAttr);
        }
        w.string(StunAttribute.SOFTWARE, SOFTWARE);
        if (key != null) {
            w.messageIntegrity(key);
        }
        w.fingerprint();
        link.writeAndFlush(out);
    }

    private StunMessageWriter success(ClientLink link, StunMessage m, Context ctx, ByteBuf out) {
        return ctx.writer.begin(out, StunMessageType.of(m.method(), StunClass.SUCCESS_RESPONSE), m);
    }

    private void seal(ClientLink link, Context ctx, ByteBuf out, byte[] key) {
        ctx.writer.string(StunAttribute.SOFTWARE, SOFTWARE).messageIntegrity(key).fingerprint();
        link.writeAndFlush(out);
    }

    // ---------------------------------------------------------------- Allocate (RFC 8656 §7.2)

    private void allocate(ClientLink link, StunMessage m, Context ctx) throws StunParseException {
        TurnAuthenticator.Result a = authenticate(link, m, ctx);
        if (a == null) {
            return;
        }
        Allocation existing = lookup(link);
        if (existing != null) {
            if (existing.isAllocateRetransmit(m.transactionId()) && existing.username().equals(a.username())) {
                allocateSuccess(link, m, ctx, existing, (existing.expiresAtMillis() - clock.getAsLong()) / 1000, 0);
            } else {
                error(link, m, ctx, StunErrorCode.ALLOCATION_MISMATCH, a.key(), -1);
            }
            return;
        }
        if (draining.getAsBoolean()) {
            metrics.drainRefusals.increment();
            error(link, m, ctx, StunErrorCode.FORBIDDEN, a.key(), -1);
            return;
        }
        int transport = m.requestedTransport();
        if (transport < 0) {
            error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: REQUESTED-TRANSPORT missing", a.key(), -1);
            return;
        }
        boolean tcpRelay = transport == TurnTcp.PROTOCOL_TCP && tcp.supported();
        if (transport != UDP && !tcpRelay) {
            error(link, m, ctx, StunErrorCode.UNSUPPORTED_TRANSPORT_PROTOCOL, a.key(), -1);
            return;
        }
        if (tcpRelay && (!link.stream() || m.find(StunAttribute.EVEN_PORT) >= 0
                || m.find(StunAttribute.RESERVATION_TOKEN) >= 0 || m.find(StunAttribute.DONT_FRAGMENT) >= 0)) {
            // RFC 6062 §5.1: a TCP allocation needs a TCP/TLS control connection, and has no port pairs or DF
            error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: TCP allocation options", a.key(), -1);
            return;
        }
        int family = m.find(StunAttribute.REQUESTED_ADDRESS_FAMILY);
        boolean ipv6 = false;
        if (family >= 0) {
            int f = m.valueLength(family) == 4 ? m.buffer().getUnsignedByte(m.valueOffset(family)) : -1;
            ipv6 = f == FAMILY_IPV6;
            if (f != FAMILY_IPV4 && !(ipv6 && config.ipv6Relays())) {
                error(link, m, ctx, StunErrorCode.ADDRESS_FAMILY_NOT_SUPPORTED, a.key(), -1);
                return;
            }
        }
        int ep = m.find(StunAttribute.EVEN_PORT);
        int rt = m.find(StunAttribute.RESERVATION_TOKEN);
        if (ep >= 0 && rt >= 0) {
            error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: EVEN-PORT with RESERVATION-TOKEN", a.key(), -1);
            return;
        }
        boolean even = false;
        boolean reservePair = false;
        if (ep >= 0) {
            if (m.valueLength(ep) < 1) {
                throw new StunParseException("EVEN-PORT empty");
            }
            even = true;
            reservePair = (m.buffer().getUnsignedByte(m.valueOffset(ep)) & 0x80) != 0;
        }
        long token = rt >= 0 ? m.uint64(StunAttribute.RESERVATION_TOKEN, 0) : 0;
        long lifetime = grantedLifetime(m.uint32(StunAttribute.LIFETIME, TurnConfig.DEFAULT_LIFETIME), a.credentialExpiryMillis());
        switch (table.reserve(a.participant())) {
            case TOTAL_QUOTA -> {
                metrics.quotaRefusal(TurnMetrics.Quota.TOTAL);
                error(link, m, ctx, StunErrorCode.ALLOCATION_QUOTA_REACHED, a.key(), -1);
                return;
            }
            case USER_QUOTA -> {
                metrics.quotaRefusal(TurnMetrics.Quota.PER_USER);
                error(link, m, ctx, StunErrorCode.ALLOCATION_QUOTA_REACHED, a.key(), -1);
                return;
            }
            case OK -> {
            }
        }
        int fixedPort = -1;
        if (rt >= 0) {
            fixedPort = table.takeReservation(token, clock.getAsLong());
            if (fixedPort < 0) {
                table.unreserve(a.participant());
                error(link, m, ctx, StunErrorCode.INSUFFICIENT_CAPACITY, "Insufficient Capacity: unknown or lapsed token", a.key(), -1);
                return;
            }
        }
        boolean dontFragment = m.find(StunAttribute.DONT_FRAGMENT) >= 0; // only reaches here if supported
        bindAndRespond(link, m.transactionId(), a, lifetime,
                new PortChoice(even, reservePair, fixedPort, ipv6, dontFragment, tcpRelay), 3, m, ctx);
    }

    /**
     * How to pick the relay port: any, even (EVEN-PORT), even with the next one reserved (R bit), or a reserved one;
     * and the relayed address family (REQUESTED-ADDRESS-FAMILY).
     */
    private record PortChoice(boolean even, boolean reservePair, int fixedPort, boolean ipv6, boolean dontFragment,
                              boolean tcp) {
    }

    private void bindAndRespond(ClientLink link, byte[] txid, TurnAuthenticator.Result a, long lifetime,
                                PortChoice choice, int attemptsLeft, StunMessage m, Context ctx) {
        int port = choice.fixedPort() >= 0 ? choice.fixedPort()
                : choice.reservePair() ? table.ports().acquirePair() : table.ports().acquire(choice.even());
        if (port < 0) {
            table.unreserve(a.participant());
            metrics.quotaRefusal(TurnMetrics.Quota.PORTS);
            error(link, m, ctx, StunErrorCode.INSUFFICIENT_CAPACITY, a.key(), -1);
            return;
        }
        InetSocketAddress relayed = new InetSocketAddress(choice.ipv6() ? config.externalAddress6() : config.externalAddress(), port);
        Allocation alloc = table.create(link, a.username(), a.participant(), a.key(), a.credentialExpiryMillis(), port,
                relayed, txid, clock.getAsLong() + lifetime * 1000, config.maxBitsPerSecondPerAllocation());
        // The request buffer is only valid during handle(); the bind normally completes inline (we are on the
        // loop), but keep a copy of what the response needs in case it does not.
        byte[] reqCopy = new byte[m.size()];
        m.buffer().getBytes(m.start(), reqCopy);
        Consumer<Channel> onBound = relay -> {
            if (link instanceof StreamClientLink s) {
                if (s.allocation != null || !s.open()) { // the connection went away or raced: undo
                    releasePorts(port, choice);
                    table.unreserve(a.participant());
                    relay.close();
                    return;
                }
                s.allocation = alloc;
            }
            if (choice.dontFragment()) {
                alloc.markDontFragment();
            }
            table.register(alloc, relay);
            metrics.allocationsCreated.increment();
            long token = choice.reservePair() ? table.reservePort(port + 1, clock.getAsLong() + RESERVATION_MILLIS) : 0;
            StunMessage view = reparse(reqCopy, ctx);
            if (view != null) {
                allocateSuccess(link, view, ctx, alloc, lifetime, token);
            }
        };
        Consumer<Throwable> onFailed = failure -> {
            releasePorts(port, choice);
            if (attemptsLeft > 1 && choice.fixedPort() < 0) {
                StunMessage view = reparse(reqCopy, ctx);
                if (view != null) {
                    bindAndRespond(link, txid, a, lifetime, choice, attemptsLeft - 1, view, ctx);
                    return;
                }
            }
            LOG.warn("relay bind failed on port {}: {}", port, failure.toString());
            table.unreserve(a.participant());
            metrics.quotaRefusal(TurnMetrics.Quota.PORTS);
            StunMessage view = reparse(reqCopy, ctx);
            if (view != null) {
                error(link, view, ctx, StunErrorCode.INSUFFICIENT_CAPACITY, a.key(), -1);
            }
        };
        if (choice.tcp()) {
            tcp.listen(alloc, new InetSocketAddress(relayBindAddress(alloc), port), onBound, onFailed);
        } else {
            binder.bind(alloc, port, choice.dontFragment(), onBound, onFailed);
        }
    }

    private InetAddress relayBindAddress(Allocation a) {
        return a.ipv6() ? config.relayAddress6() : config.relayAddress();
    }

    private void releasePorts(int port, PortChoice choice) {
        table.ports().release(port);
        if (choice.reservePair()) {
            table.ports().release(port + 1);
        }
    }

    private static StunMessage reparse(byte[] copy, Context ctx) {
        try {
            return ctx.view.wrap(io.netty.buffer.Unpooled.wrappedBuffer(copy));
        } catch (StunParseException e) {
            return null; // cannot happen: it parsed before
        }
    }

    private void allocateSuccess(ClientLink link, StunMessage m, Context ctx, Allocation a, long lifetime, long token) {
        ByteBuf out = link.alloc().ioBuffer(176);
        InetSocketAddress r = link.remote();
        StunMessageWriter w = success(link, m, ctx, out)
                .xorAddress(StunAttribute.XOR_RELAYED_ADDRESS, a.relayedAddress().getAddress(), a.relayedAddress().getPort())
                .uint32(StunAttribute.LIFETIME, Math.max(0, lifetime))
                .xorAddress(StunAttribute.XOR_MAPPED_ADDRESS, r.getAddress(), r.getPort());
        if (token != 0) {
            w.uint64(StunAttribute.RESERVATION_TOKEN, token);
        }
        seal(link, ctx, out, a.key());
    }

    /**
     * Lifetime per RFC 8656 §7.2 (default 600 s if lower requested, at most 3600 s), and never past the credential's
     * expiry: an allocation lives only as long as the credential that created it.
     */
    private long grantedLifetime(long requested, long credentialExpiryMillis) {
        long l = Math.max(TurnConfig.DEFAULT_LIFETIME, Math.min(requested, TurnConfig.MAX_LIFETIME));
        long credentialLeft = (credentialExpiryMillis - clock.getAsLong()) / 1000;
        return Math.max(0, Math.min(l, credentialLeft));
    }

    // ---------------------------------------------------------------- Refresh (§8)

    /** Authenticates and finds the client's allocation with the same username; sends 437/441 otherwise. */
    private Allocation authorised(ClientLink link, StunMessage m, Context ctx, TurnAuthenticator.Result a) {
        Allocation alloc = lookup(link);
        if (alloc == null) {
            error(link, m, ctx, StunErrorCode.ALLOCATION_MISMATCH, a.key(), -1);
            return null;
        }
        if (!alloc.username().equals(a.username())) {
            metrics.authFailure(TurnMetrics.AuthFailure.WRONG_CREDENTIALS);
            error(link, m, ctx, StunErrorCode.WRONG_CREDENTIALS, a.key(), -1);
            return null;
        }
        return alloc;
    }

    private void refresh(ClientLink link, StunMessage m, Context ctx) throws StunParseException {
        TurnAuthenticator.Result a = authenticate(link, m, ctx);
        if (a == null) {
            return;
        }
        Allocation alloc = authorised(link, m, ctx, a);
        if (alloc == null) {
            return;
        }
        long requested = m.uint32(StunAttribute.LIFETIME, TurnConfig.DEFAULT_LIFETIME);
        long lifetime = requested == 0 ? 0 : grantedLifetime(requested, a.credentialExpiryMillis());
        if (lifetime == 0) {
            table.close(alloc);
        } else {
            alloc.expiresAtMillis(clock.getAsLong() + lifetime * 1000);
        }
        ByteBuf out = link.alloc().ioBuffer(96);
        success(link, m, ctx, out).uint32(StunAttribute.LIFETIME, lifetime);
        seal(link, ctx, out, a.key());
    }

    // ---------------------------------------------------------------- CreatePermission (§9)

    private void createPermission(ClientLink link, StunMessage m, Context ctx) throws StunParseException {
        TurnAuthenticator.Result a = authenticate(link, m, ctx);
        if (a == null) {
            return;
        }
        Allocation alloc = authorised(link, m, ctx, a);
        if (alloc == null) {
            return;
        }
        int n = 0;
        InetAddress[] peers = new InetAddress[m.attributeCount()];
        for (int i = 0; i < m.attributeCount(); i++) {
            if (m.attributeType(i) != StunAttribute.XOR_PEER_ADDRESS) {
                continue;
            }
            m.readAddress(i, true, ctx.addr);
            int code = checkPeer(alloc, ctx.addr, null, PeerPath.CREATE_PERMISSION, ctx);
            if (code != 0) {
                error(link, m, ctx, code, a.key(), -1);
                return;
            }
            peers[n++] = ctx.addr.toSocketAddress().getAddress();
        }
        if (n == 0) {
            error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: XOR-PEER-ADDRESS missing", a.key(), -1);
            return;
        }
        for (int i = 0; i < n; i++) {
            if (!alloc.hasPermissionCapacity(peers[i])) {
                metrics.quotaRefusal(TurnMetrics.Quota.TOTAL);
                error(link, m, ctx, StunErrorCode.INSUFFICIENT_CAPACITY, a.key(), -1);
                return;
            }
        }
        long expires = clock.getAsLong() + TurnConfig.PERMISSION_LIFETIME * 1000L;
        for (int i = 0; i < n; i++) {
            alloc.installPermission(peers[i], expires);
        }
        ByteBuf out = link.alloc().ioBuffer(96);
        success(link, m, ctx, out);
        seal(link, ctx, out, a.key());
    }

    /**
     * The peer checks every path shares: policy on address <em>and port</em> (403: an SFU's published media port for
     * the relay's protocol, or an allow-list rule), this server's own addresses (403), family (443: the peer must
     * have the relayed address's family; IPv4-mapped spellings count as IPv4). A CreatePermission on a TCP
     * allocation admits inbound connections from any source port, so there the address alone is judged. Returns 0
     * if the peer is acceptable.
     */
    private int checkPeer(Allocation alloc, StunMessage.StunAddress addr, InetSocketAddress withPort, PeerPath path, Context ctx) {
        PeerPolicy policy = relayPath.policy();
        PeerPolicy.Protocol protocol = alloc.tcp() != null ? PeerPolicy.Protocol.TCP : PeerPolicy.Protocol.UDP;
        boolean permitted = path == PeerPath.CREATE_PERMISSION && alloc.tcp() != null
                ? policy.permitsAddress(addr.address(), protocol, ctx.scratch)
                : policy.permits(addr.address(), addr.port, protocol, ctx.scratch);
        if (!permitted) {
            metrics.deniedPeer(path);
            deniedLog.denied(path, addr, alloc);
            return StunErrorCode.FORBIDDEN;
        }
        InetSocketAddress sa = withPort != null ? withPort : addr.toSocketAddress();
        if ((sa.getAddress() instanceof java.net.Inet6Address) != alloc.ipv6()) {
            return StunErrorCode.PEER_ADDRESS_FAMILY_MISMATCH;
        }
        if (withPort != null && relayPath.isSelf(sa)) {
            metrics.deniedPeer(path);
            deniedLog.denied(path, addr, alloc);
            return StunErrorCode.FORBIDDEN;
        }
        return 0;
    }

    // ---------------------------------------------------------------- ChannelBind (§11)

    private void channelBind(ClientLink link, StunMessage m, Context ctx) throws StunParseException {
        TurnAuthenticator.Result a = authenticate(link, m, ctx);
        if (a == null) {
            return;
        }
        Allocation alloc = authorised(link, m, ctx, a);
        if (alloc == null) {
            return;
        }
        if (alloc.tcp() != null) {
            error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: no channels on a TCP allocation", a.key(), -1);
            return;
        }
        int channel = m.channelNumber();
        if (!ChannelData.isLegacyValidChannel(channel) || !m.xorAddress(StunAttribute.XOR_PEER_ADDRESS, ctx.addr)) {
            error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: CHANNEL-NUMBER or XOR-PEER-ADDRESS invalid", a.key(), -1);
            return;
        }
        InetSocketAddress peer = ctx.addr.toSocketAddress();
        int code = checkPeer(alloc, ctx.addr, peer, PeerPath.CHANNEL_BIND, ctx);
        if (code != 0) {
            error(link, m, ctx, code, a.key(), -1);
            return;
        }
        if (alloc.bindingConflicts(channel, peer)) {
            error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: channel or peer already bound differently", a.key(), -1);
            return;
        }
        long now = clock.getAsLong();
        if (!alloc.hasPermissionCapacity(peer.getAddress())
                || !alloc.bindChannel(channel, peer, now + TurnConfig.CHANNEL_LIFETIME * 1000L)) {
            error(link, m, ctx, StunErrorCode.INSUFFICIENT_CAPACITY, a.key(), -1);
            return;
        }
        alloc.installPermission(peer.getAddress(), now + TurnConfig.PERMISSION_LIFETIME * 1000L);
        metrics.channelBinds.increment();
        ByteBuf out = link.alloc().ioBuffer(96);
        success(link, m, ctx, out);
        seal(link, ctx, out, a.key());
    }

    // ---------------------------------------------------------------- Send indication (§10.2)

    private Channel send(ClientLink link, StunMessage m, Context ctx) throws StunParseException {
        Allocation alloc = lookup(link);
        if (alloc == null || alloc.tcp() != null) { // a TCP allocation relays over its data connections only
            metrics.droppedNoPermission.increment();
            return null;
        }
        int data = m.find(StunAttribute.DATA);
        if (data < 0 || !m.xorAddress(StunAttribute.XOR_PEER_ADDRESS, ctx.addr)) {
            metrics.malformedPackets.increment();
            return null;
        }
        InetSocketAddress peer = ctx.addr.toSocketAddress();
        if (checkPeer(alloc, ctx.addr, peer, PeerPath.SEND, ctx) != 0) {
            return null;
        }
        if (!alloc.hasPermission(peer.getAddress(), clock.getAsLong())) {
            metrics.droppedNoPermission.increment();
            return null;
        }
        if (!alloc.dontFragment() && m.find(StunAttribute.DONT_FRAGMENT) >= 0) {
            // RFC 8656 §11.2: DF asked for on a relay socket that does not set it (allocated without DONT-FRAGMENT,
            // or a transport without DF): discard rather than send a datagram that may be fragmented
            metrics.dontFragmentDropped.increment();
            return null;
        }
        return relayPath.clientSend(alloc, peer, m.buffer(), m.valueOffset(data), m.valueLength(data));
    }

    // ---------------------------------------------------------------- RFC 6062: Connect, ConnectionBind

    /** Connect (RFC 6062 §5.2): checks here, the connection itself in {@link TcpAllocations#connect}. */
    private void connect(ClientLink link, StunMessage m, Context ctx) throws StunParseException {
        TurnAuthenticator.Result a = authenticate(link, m, ctx);
        if (a == null) {
            return;
        }
        Allocation alloc = authorised(link, m, ctx, a);
        if (alloc == null) {
            return;
        }
        if (alloc.tcp() == null) {
            error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: Connect needs a TCP allocation", a.key(), -1);
            return;
        }
        if (!m.xorAddress(StunAttribute.XOR_PEER_ADDRESS, ctx.addr)) {
            error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: XOR-PEER-ADDRESS missing", a.key(), -1);
            return;
        }
        InetSocketAddress peer = ctx.addr.toSocketAddress();
        int code = checkPeer(alloc, ctx.addr, peer, PeerPath.CONNECT, ctx);
        if (code != 0) {
            error(link, m, ctx, code, a.key(), -1);
            return;
        }
        if (alloc.tcp().find(peer) != null) {
            error(link, m, ctx, TurnTcp.CONNECTION_ALREADY_EXISTS, TurnTcp.reason(TurnTcp.CONNECTION_ALREADY_EXISTS), a.key(), -1);
            return;
        }
        if (alloc.tcp().full()) {
            metrics.quotaRefusal(TurnMetrics.Quota.TOTAL);
            error(link, m, ctx, StunErrorCode.INSUFFICIENT_CAPACITY, a.key(), -1);
            return;
        }
        tcp.connect(link, alloc, peer, relayBindAddress(alloc), m.transactionId(), a.key());
    }

    /**
     * ConnectionBind (RFC 6062 §5.4): on a new TCP/TLS connection that has no allocation, with the credentials of the
     * allocation that owns the pending peer connection named by CONNECTION-ID. Claiming the connection is atomic
     * (against the bind timeout and a second ConnectionBind).
     */
    private void connectionBind(ClientLink link, StunMessage m, Context ctx) throws StunParseException {
        TurnAuthenticator.Result a = authenticate(link, m, ctx);
        if (a == null) {
            return;
        }
        if (!(link instanceof StreamClientLink data) || data.allocation != null) {
            error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: ConnectionBind needs a new TCP connection", a.key(), -1);
            return;
        }
        int attr = m.find(TurnTcp.CONNECTION_ID);
        PeerConnection pc = attr >= 0 && m.valueLength(attr) == 4
                ? tcp.registry().peek(m.buffer().getInt(m.valueOffset(attr))) : null;
        if (pc == null) {
            error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: unknown CONNECTION-ID", a.key(), -1);
            return;
        }
        if (!pc.allocation().username().equals(a.username())) {
            metrics.authFailure(TurnMetrics.AuthFailure.WRONG_CREDENTIALS);
            error(link, m, ctx, StunErrorCode.WRONG_CREDENTIALS, a.key(), -1);
            return;
        }
        if (!tcp.registry().claim(pc.id(), pc)) {
            error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: unknown CONNECTION-ID", a.key(), -1);
            return;
        }
        tcp.bind(data, pc, m.transactionId(), a.key());
    }
}
