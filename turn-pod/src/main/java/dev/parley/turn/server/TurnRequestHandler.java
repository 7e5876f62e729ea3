package dev.parley.turn.server;

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
import dev.parley.turn.link.ClientLink;
import dev.parley.turn.metrics.TurnMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

import java.net.InetSocketAddress;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * TURN control plane front door (RFC 8656 §7–§11, RFC 6062): parses a STUN message, refuses unknown
 * comprehension-required attributes and hands each method to its own class ({@link AllocateMethod},
 * {@link RefreshMethod}, {@link CreatePermissionMethod}, {@link ChannelBindMethod}, {@link SendIndication},
 * {@link TcpMethods}; authentication in {@link RequestAuth}); answers STUN Binding itself. Stateless (shared by all
 * loops); each call runs on the client's event loop, and every allocation it touches belongs to that loop.
 *
 * <p>Order of checks for requests: parse → unknown comprehension-required attributes (420) → authentication (401 /
 * 438 / 400) → allocation lookup (437) → username match (441) → method-specific checks.
 */
public final class TurnRequestHandler {
    private final TurnMetrics metrics;
    private final ClientAllocations allocations;
    private final Responses responses;
    private final RelayBinder binder;
    private final AllocateMethod allocate;
    private final RefreshMethod refresh;
    private final CreatePermissionMethod createPermission;
    private final ChannelBindMethod channelBind;
    private final SendIndication send;
    private final TcpMethods tcpMethods;

    TurnRequestHandler(TurnConfig config, AllocationTable table, TurnAuthenticator auth,
                       UnauthenticatedLimiter limiter, TurnMetrics metrics, LongSupplier clock,
                       RelayPath relayPath, RelayBinder binder, BooleanSupplier draining, TcpAllocations tcp) {
        this.allocations = new ClientAllocations(table);
        this.responses = new Responses(metrics);
        this.binder = binder;
        this.metrics = metrics;
        RequestAuth requestAuth = new RequestAuth(auth, limiter, metrics, clock, allocations, responses);
        PeerChecks peers = new PeerChecks(relayPath, metrics);
        this.allocate = new AllocateMethod(config, table, requestAuth, responses, allocations, metrics, clock, binder,
                draining, tcp);
        this.refresh = new RefreshMethod(requestAuth, responses, table, clock);
        this.createPermission = new CreatePermissionMethod(requestAuth, responses, peers, metrics, clock);
        this.channelBind = new ChannelBindMethod(requestAuth, responses, peers, metrics, clock);
        this.send = new SendIndication(allocations, peers, relayPath, metrics, clock);
        this.tcpMethods = new TcpMethods(requestAuth, responses, peers, metrics, config, tcp);
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
        return allocations.udp(client);
    }

    /** The allocation of this client link (UDP: by source address; stream: held by the connection), or null. */
    public Allocation lookup(ClientLink link) {
        return allocations.of(link);
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
                return m.method() == StunMethod.SEND ? send.handle(link, m, ctx) : null;
            }
            int unknown = m.firstUnknownRequired(m.method() == StunMethod.ALLOCATE && binder.supportsDontFragment()
                    ? TurnRequestHandler::knownInAllocateWithDf : TurnRequestHandler::known);
            if (unknown >= 0) {
                responses.error(link, m, ctx, StunErrorCode.UNKNOWN_ATTRIBUTE, null, unknown);
                return null;
            }
            switch (m.method()) {
                case StunMethod.BINDING -> binding(link, m, ctx);
                case StunMethod.ALLOCATE -> allocate.handle(link, m, ctx);
                case StunMethod.REFRESH -> refresh.handle(link, m, ctx);
                case StunMethod.CREATE_PERMISSION -> createPermission.handle(link, m, ctx);
                case StunMethod.CHANNEL_BIND -> channelBind.handle(link, m, ctx);
                case TurnTcp.CONNECT -> tcpMethods.connect(link, m, ctx);
                case TurnTcp.CONNECTION_BIND -> tcpMethods.connectionBind(link, m, ctx);
                default -> responses.error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: unknown method", null, -1);
            }
        } catch (StunParseException e) {
            metrics.malformedPackets.increment();
            if (m.isRequest()) {
                responses.error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: " + e.getMessage(), null, -1);
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
}
