package dev.parley.turn.server;

import dev.parley.media.stun.StunAttribute;
import dev.parley.media.stun.StunErrorCode;
import dev.parley.media.stun.StunMessage;
import dev.parley.media.stun.StunMessageWriter;
import dev.parley.media.stun.StunParseException;
import dev.parley.media.stun.TurnTcp;
import dev.parley.turn.allocation.Allocation;
import dev.parley.turn.allocation.AllocationTable;
import dev.parley.turn.auth.TurnAuthenticator;
import dev.parley.turn.config.TurnConfig;
import dev.parley.turn.link.ClientLink;
import dev.parley.turn.metrics.TurnMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Allocate (RFC 8656 §7.2, RFC 6062 §5.1 for TCP): validates the request, takes the quota, picks and binds a relay
 * port (UDP socket or TCP listener), registers the allocation and answers with the relayed and mapped addresses. A
 * retransmitted Allocate of an existing allocation gets the same success again.
 */
final class AllocateMethod {
    private static final Logger LOG = LoggerFactory.getLogger(AllocateMethod.class);
    private static final int UDP = 17;
    /** REQUESTED-ADDRESS-FAMILY values (RFC 8656 §18.11). */
    private static final int FAMILY_IPV4 = 0x01;
    private static final int FAMILY_IPV6 = 0x02;
    /** How long the odd port of an EVEN-PORT R=1 allocation stays reserved (RFC 8656 §7.2 suggests ~30 s). */
    private static final long RESERVATION_MILLIS = 30_000;
    /** Relay binds that fail (a port taken by someone else) are retried on another port this often in all. */
    private static final int BIND_ATTEMPTS = 3;

    private final TurnConfig config;
    private final AllocationTable table;
    private final RequestAuth auth;
    private final Responses responses;
    private final ClientAllocations allocations;
    private final TurnMetrics metrics;
    private final LongSupplier clock;
    private final RelayBinder binder;
    private final BooleanSupplier draining;
    private final TcpAllocations tcp;

    AllocateMethod(TurnConfig config, AllocationTable table, RequestAuth auth, Responses responses,
                   ClientAllocations allocations, TurnMetrics metrics, LongSupplier clock, RelayBinder binder,
                   BooleanSupplier draining, TcpAllocations tcp) {
        this.config = config;
        this.table = table;
        this.auth = auth;
        this.responses = responses;
        this.allocations = allocations;
        this.metrics = metrics;
        this.clock = clock;
        this.binder = binder;
        this.draining = draining;
        this.tcp = tcp;
    }

    /**
     * How to pick the relay port: any, even (EVEN-PORT), even with the next one reserved (R bit), or a reserved one;
     * and the relayed address family (REQUESTED-ADDRESS-FAMILY).
     */
    private record PortChoice(boolean even, boolean reservePair, int fixedPort, boolean ipv6, boolean dontFragment,
                              boolean tcp) {
    }

    /** The local address a relay socket of {@code a} binds to (its family's relay address). */
    static InetAddress relayBindAddress(TurnConfig config, Allocation a) {
        return a.ipv6() ? config.relayAddress6() : config.relayAddress();
    }

    void handle(ClientLink link, StunMessage m, TurnRequestHandler.Context ctx) throws StunParseException {
        TurnAuthenticator.Result a = auth.authenticate(link, m, ctx);
        if (a == null) {
            return;
        }
        Allocation existing = allocations.of(link);
        if (existing != null) {
            if (existing.isAllocateRetransmit(m.transactionId()) && existing.username().equals(a.username())) {
                success(link, m, ctx, existing, (existing.expiresAtMillis() - clock.getAsLong()) / 1000, 0);
            } else {
                responses.error(link, m, ctx, StunErrorCode.ALLOCATION_MISMATCH, a.key(), -1);
            }
            return;
        }
        if (draining.getAsBoolean()) {
            metrics.drainRefusals.increment();
            responses.error(link, m, ctx, StunErrorCode.FORBIDDEN, a.key(), -1);
            return;
        }
        PortChoice choice = portChoice(link, m, ctx, a);
        if (choice == null) {
            return;
        }
        long lifetime = Lifetimes.granted(m.uint32(StunAttribute.LIFETIME, TurnConfig.DEFAULT_LIFETIME),
                a.credentialExpiryMillis(), clock.getAsLong());
        if (!reserveQuota(link, m, ctx, a)) {
            return;
        }
        int fixedPort = -1;
        if (m.find(StunAttribute.RESERVATION_TOKEN) >= 0) {
            fixedPort = table.takeReservation(m.uint64(StunAttribute.RESERVATION_TOKEN, 0), clock.getAsLong());
            if (fixedPort < 0) {
                table.unreserve(a.participant());
                responses.error(link, m, ctx, StunErrorCode.INSUFFICIENT_CAPACITY,
                        "Insufficient Capacity: unknown or lapsed token", a.key(), -1);
                return;
            }
        }
        bindAndRespond(link, m.transactionId(), a, lifetime, new PortChoice(choice.even(), choice.reservePair(),
                fixedPort, choice.ipv6(), choice.dontFragment(), choice.tcp()), BIND_ATTEMPTS, m, ctx);
    }

    /**
     * REQUESTED-TRANSPORT, the TCP allocation's restrictions, REQUESTED-ADDRESS-FAMILY, EVEN-PORT and
     * RESERVATION-TOKEN checked; null (the error sent) if the request cannot be served. The fixed port is not yet
     * known here (-1).
     */
    private PortChoice portChoice(ClientLink link, StunMessage m, TurnRequestHandler.Context ctx,
                                  TurnAuthenticator.Result a) throws StunParseException {
        int transport = m.requestedTransport();
        if (transport < 0) {
            responses.error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: REQUESTED-TRANSPORT missing", a.key(), -1);
            return null;
        }
        boolean tcpRelay = transport == TurnTcp.PROTOCOL_TCP && tcp.supported();
        if (transport != UDP && !tcpRelay) {
            responses.error(link, m, ctx, StunErrorCode.UNSUPPORTED_TRANSPORT_PROTOCOL, a.key(), -1);
            return null;
        }
        if (tcpRelay && (!link.stream() || m.find(StunAttribute.EVEN_PORT) >= 0
                || m.find(StunAttribute.RESERVATION_TOKEN) >= 0 || m.find(StunAttribute.DONT_FRAGMENT) >= 0)) {
            // RFC 6062 §5.1: a TCP allocation needs a TCP/TLS control connection, and has no port pairs or DF
            responses.error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: TCP allocation options", a.key(), -1);
            return null;
        }
        int family = m.find(StunAttribute.REQUESTED_ADDRESS_FAMILY);
        boolean ipv6 = false;
        if (family >= 0) {
            int f = m.valueLength(family) == 4 ? m.buffer().getUnsignedByte(m.valueOffset(family)) : -1;
            ipv6 = f == FAMILY_IPV6;
            if (f != FAMILY_IPV4 && !(ipv6 && config.ipv6Relays())) {
                responses.error(link, m, ctx, StunErrorCode.ADDRESS_FAMILY_NOT_SUPPORTED, a.key(), -1);
                return null;
            }
        }
        int ep = m.find(StunAttribute.EVEN_PORT);
        int rt = m.find(StunAttribute.RESERVATION_TOKEN);
        if (ep >= 0 && rt >= 0) {
            responses.error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: EVEN-PORT with RESERVATION-TOKEN", a.key(), -1);
            return null;
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
        if (rt >= 0) {
            m.uint64(StunAttribute.RESERVATION_TOKEN, 0); // size check before the quota is taken
        }
        boolean dontFragment = m.find(StunAttribute.DONT_FRAGMENT) >= 0; // only reaches here if supported
        return new PortChoice(even, reservePair, -1, ipv6, dontFragment, tcpRelay);
    }

    /** Takes one allocation of the total and the user's quota; false (486 sent) if either is spent. */
    private boolean reserveQuota(ClientLink link, StunMessage m, TurnRequestHandler.Context ctx, TurnAuthenticator.Result a) {
        TurnMetrics.Quota refused = switch (table.reserve(a.participant())) {
            case TOTAL_QUOTA -> TurnMetrics.Quota.TOTAL;
            case USER_QUOTA -> TurnMetrics.Quota.PER_USER;
            case OK -> null;
        };
        if (refused == null) {
            return true;
        }
        metrics.quotaRefusal(refused);
        responses.error(link, m, ctx, StunErrorCode.ALLOCATION_QUOTA_REACHED, a.key(), -1);
        return false;
    }

    private void bindAndRespond(ClientLink link, byte[] txid, TurnAuthenticator.Result a, long lifetime,
                                PortChoice choice, int attemptsLeft, StunMessage m, TurnRequestHandler.Context ctx) {
        int port = choice.fixedPort() >= 0 ? choice.fixedPort()
                : choice.reservePair() ? table.ports().acquirePair() : table.ports().acquire(choice.even());
        if (port < 0) {
            table.unreserve(a.participant());
            metrics.quotaRefusal(TurnMetrics.Quota.PORTS);
            responses.error(link, m, ctx, StunErrorCode.INSUFFICIENT_CAPACITY, a.key(), -1);
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
                success(link, view, ctx, alloc, lifetime, token);
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
                responses.error(link, view, ctx, StunErrorCode.INSUFFICIENT_CAPACITY, a.key(), -1);
            }
        };
        if (choice.tcp()) {
            tcp.listen(alloc, new InetSocketAddress(relayBindAddress(config, alloc), port), onBound, onFailed);
        } else {
            binder.bind(alloc, port, choice.dontFragment(), onBound, onFailed);
        }
    }

    private void releasePorts(int port, PortChoice choice) {
        table.ports().release(port);
        if (choice.reservePair()) {
            table.ports().release(port + 1);
        }
    }

    private static StunMessage reparse(byte[] copy, TurnRequestHandler.Context ctx) {
        try {
            return ctx.view.wrap(Unpooled.wrappedBuffer(copy));
        } catch (StunParseException e) {
            return null; // cannot happen: it parsed before
        }
    }

    private void success(ClientLink link, StunMessage m, TurnRequestHandler.Context ctx, Allocation a, long lifetime,
                         long token) {
        ByteBuf out = link.alloc().ioBuffer(176);
        InetSocketAddress r = link.remote();
        StunMessageWriter w = responses.success(m, ctx, out)
                .xorAddress(StunAttribute.XOR_RELAYED_ADDRESS, a.relayedAddress().getAddress(), a.relayedAddress().getPort())
                .uint32(StunAttribute.LIFETIME, Math.max(0, lifetime))
                .xorAddress(StunAttribute.XOR_MAPPED_ADDRESS, r.getAddress(), r.getPort());
        if (token != 0) {
            w.uint64(StunAttribute.RESERVATION_TOKEN, token);
        }
        responses.seal(link, ctx, out, a.key());
    }
}
