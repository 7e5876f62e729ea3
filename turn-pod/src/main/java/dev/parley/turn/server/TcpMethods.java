package dev.parley.turn.server;

import dev.parley.media.stun.StunAttribute;
import dev.parley.media.stun.StunErrorCode;
import dev.parley.media.stun.StunMessage;
import dev.parley.media.stun.StunParseException;
import dev.parley.media.stun.TurnTcp;
import dev.parley.turn.allocation.Allocation;
import dev.parley.turn.auth.TurnAuthenticator;
import dev.parley.turn.config.TurnConfig;
import dev.parley.turn.link.ClientLink;
import dev.parley.turn.metrics.TurnMetrics;
import dev.parley.turn.metrics.TurnMetrics.PeerPath;
import dev.parley.turn.tcp.PeerConnection;

import java.net.InetSocketAddress;

/**
 * The RFC 6062 requests: Connect and ConnectionBind. The checks are here; the connections themselves are
 * {@link TcpAllocations}'.
 */
final class TcpMethods {
    private final RequestAuth auth;
    private final Responses responses;
    private final PeerChecks peers;
    private final TurnMetrics metrics;
    private final TurnConfig config;
    private final TcpAllocations tcp;

    TcpMethods(RequestAuth auth, Responses responses, PeerChecks peers, TurnMetrics metrics, TurnConfig config,
               TcpAllocations tcp) {
        this.auth = auth;
        this.responses = responses;
        this.peers = peers;
        this.metrics = metrics;
        this.config = config;
        this.tcp = tcp;
    }

    /** Connect (RFC 6062 §5.2): checks here, the connection itself in {@link TcpAllocations#connect}. */
    void connect(ClientLink link, StunMessage m, TurnRequestHandler.Context ctx) throws StunParseException {
        RequestAuth.Authorised a = auth.authorise(link, m, ctx);
        if (a == null) {
            return;
        }
        Allocation alloc = a.allocation();
        if (alloc.tcp() == null) {
            responses.error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: Connect needs a TCP allocation", a.key(), -1);
            return;
        }
        if (!m.xorAddress(StunAttribute.XOR_PEER_ADDRESS, ctx.addr)) {
            responses.error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: XOR-PEER-ADDRESS missing", a.key(), -1);
            return;
        }
        InetSocketAddress peer = ctx.addr.toSocketAddress();
        int code = peers.check(alloc, ctx.addr, peer, PeerPath.CONNECT, ctx.scratch);
        if (code != 0) {
            responses.error(link, m, ctx, code, a.key(), -1);
            return;
        }
        if (alloc.tcp().find(peer) != null) {
            responses.error(link, m, ctx, TurnTcp.CONNECTION_ALREADY_EXISTS,
                    TurnTcp.reason(TurnTcp.CONNECTION_ALREADY_EXISTS), a.key(), -1);
            return;
        }
        if (alloc.tcp().full()) {
            metrics.quotaRefusal(TurnMetrics.Quota.TOTAL);
            responses.error(link, m, ctx, StunErrorCode.INSUFFICIENT_CAPACITY, a.key(), -1);
            return;
        }
        tcp.connect(link, alloc, peer, AllocateMethod.relayBindAddress(config, alloc), m.transactionId(), a.key());
    }

    /**
     * ConnectionBind (RFC 6062 §5.4): on a new TCP/TLS connection that has no allocation, with the credentials of the
     * allocation that owns the pending peer connection named by CONNECTION-ID. Claiming the connection is atomic
     * (against the bind timeout and a second ConnectionBind).
     */
    void connectionBind(ClientLink link, StunMessage m, TurnRequestHandler.Context ctx) {
        TurnAuthenticator.Result a = auth.authenticate(link, m, ctx);
        if (a == null) {
            return;
        }
        if (!(link instanceof StreamClientLink data) || data.allocation != null) {
            responses.error(link, m, ctx, StunErrorCode.BAD_REQUEST,
                    "Bad Request: ConnectionBind needs a new TCP connection", a.key(), -1);
            return;
        }
        int attr = m.find(TurnTcp.CONNECTION_ID);
        PeerConnection pc = attr >= 0 && m.valueLength(attr) == 4
                ? tcp.registry().peek(m.buffer().getInt(m.valueOffset(attr))) : null;
        if (pc == null) {
            responses.error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: unknown CONNECTION-ID", a.key(), -1);
            return;
        }
        if (!pc.allocation().username().equals(a.username())) {
            metrics.authFailure(TurnMetrics.AuthFailure.WRONG_CREDENTIALS);
            responses.error(link, m, ctx, StunErrorCode.WRONG_CREDENTIALS, a.key(), -1);
            return;
        }
        if (!tcp.registry().claim(pc.id(), pc)) {
            responses.error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: unknown CONNECTION-ID", a.key(), -1);
            return;
        }
        tcp.bind(data, pc, m.transactionId(), a.key());
    }
}
