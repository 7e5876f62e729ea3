package dev.parley.turn.server;

import dev.parley.media.stun.StunAttribute;
import dev.parley.media.stun.StunErrorCode;
import dev.parley.media.stun.StunMessage;
import dev.parley.media.stun.StunParseException;
import dev.parley.turn.allocation.Allocation;
import dev.parley.turn.config.TurnConfig;
import dev.parley.turn.link.ClientLink;
import dev.parley.turn.metrics.TurnMetrics;
import dev.parley.turn.metrics.TurnMetrics.PeerPath;
import io.netty.buffer.ByteBuf;

import java.net.InetAddress;
import java.util.function.LongSupplier;

/**
 * CreatePermission (RFC 8656 §9): installs or refreshes a permission for each XOR-PEER-ADDRESS, all or none (every
 * peer is checked, and capacity for all of them, before any is installed).
 */
final class CreatePermissionMethod {
    private final RequestAuth auth;
    private final Responses responses;
    private final PeerChecks peers;
    private final TurnMetrics metrics;
    private final LongSupplier clock;

    CreatePermissionMethod(RequestAuth auth, Responses responses, PeerChecks peers, TurnMetrics metrics,
                           LongSupplier clock) {
        this.auth = auth;
        this.responses = responses;
        this.peers = peers;
        this.metrics = metrics;
        this.clock = clock;
    }

    void handle(ClientLink link, StunMessage m, TurnRequestHandler.Context ctx) throws StunParseException {
        RequestAuth.Authorised a = auth.authorise(link, m, ctx);
        if (a == null) {
            return;
        }
        Allocation alloc = a.allocation();
        int n = 0;
        InetAddress[] addresses = new InetAddress[m.attributeCount()];
        for (int i = 0; i < m.attributeCount(); i++) {
            if (m.attributeType(i) != StunAttribute.XOR_PEER_ADDRESS) {
                continue;
            }
            m.readAddress(i, true, ctx.addr);
            int code = peers.check(alloc, ctx.addr, null, PeerPath.CREATE_PERMISSION, ctx.scratch);
            if (code != 0) {
                responses.error(link, m, ctx, code, a.key(), -1);
                return;
            }
            addresses[n++] = ctx.addr.toSocketAddress().getAddress();
        }
        if (n == 0) {
            responses.error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: XOR-PEER-ADDRESS missing", a.key(), -1);
            return;
        }
        for (int i = 0; i < n; i++) {
            if (!alloc.hasPermissionCapacity(addresses[i])) {
                metrics.quotaRefusal(TurnMetrics.Quota.TOTAL);
                responses.error(link, m, ctx, StunErrorCode.INSUFFICIENT_CAPACITY, a.key(), -1);
                return;
            }
        }
        long expires = clock.getAsLong() + TurnConfig.PERMISSION_LIFETIME * 1000L;
        for (int i = 0; i < n; i++) {
            alloc.installPermission(addresses[i], expires);
        }
        ByteBuf out = link.alloc().ioBuffer(96);
        responses.success(m, ctx, out);
        responses.seal(link, ctx, out, a.key());
    }
}
