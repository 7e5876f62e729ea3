package dev.parley.turn.server;

import dev.parley.media.stun.ChannelData;
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

import java.net.InetSocketAddress;
import java.util.function.LongSupplier;

/** ChannelBind (RFC 8656 §11): binds or refreshes a channel number to a peer, and the peer's permission with it. */
final class ChannelBindMethod {
    private final RequestAuth auth;
    private final Responses responses;
    private final PeerChecks peers;
    private final TurnMetrics metrics;
    private final LongSupplier clock;

    ChannelBindMethod(RequestAuth auth, Responses responses, PeerChecks peers, TurnMetrics metrics, LongSupplier clock) {
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
        if (alloc.tcp() != null) {
            responses.error(link, m, ctx, StunErrorCode.BAD_REQUEST, "Bad Request: no channels on a TCP allocation", a.key(), -1);
            return;
        }
        int channel = m.channelNumber();
        if (!ChannelData.isLegacyValidChannel(channel) || !m.xorAddress(StunAttribute.XOR_PEER_ADDRESS, ctx.addr)) {
            responses.error(link, m, ctx, StunErrorCode.BAD_REQUEST,
                    "Bad Request: CHANNEL-NUMBER or XOR-PEER-ADDRESS invalid", a.key(), -1);
            return;
        }
        InetSocketAddress peer = ctx.addr.toSocketAddress();
        int code = peers.check(alloc, ctx.addr, peer, PeerPath.CHANNEL_BIND, ctx.scratch);
        if (code != 0) {
            responses.error(link, m, ctx, code, a.key(), -1);
            return;
        }
        if (alloc.bindingConflicts(channel, peer)) {
            responses.error(link, m, ctx, StunErrorCode.BAD_REQUEST,
                    "Bad Request: channel or peer already bound differently", a.key(), -1);
            return;
        }
        long now = clock.getAsLong();
        if (!alloc.hasPermissionCapacity(peer.getAddress())
                || !alloc.bindChannel(channel, peer, now + TurnConfig.CHANNEL_LIFETIME * 1000L)) {
            responses.error(link, m, ctx, StunErrorCode.INSUFFICIENT_CAPACITY, a.key(), -1);
            return;
        }
        alloc.installPermission(peer.getAddress(), now + TurnConfig.PERMISSION_LIFETIME * 1000L);
        metrics.channelBinds.increment();
        ByteBuf out = link.alloc().ioBuffer(96);
        responses.success(m, ctx, out);
        responses.seal(link, ctx, out, a.key());
    }
}
