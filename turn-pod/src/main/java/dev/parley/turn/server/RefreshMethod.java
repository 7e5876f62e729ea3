package dev.parley.turn.server;

import dev.parley.media.stun.StunAttribute;
import dev.parley.media.stun.StunMessage;
import dev.parley.media.stun.StunParseException;
import dev.parley.turn.allocation.Allocation;
import dev.parley.turn.allocation.AllocationTable;
import dev.parley.turn.config.TurnConfig;
import dev.parley.turn.link.ClientLink;
import io.netty.buffer.ByteBuf;

import java.util.function.LongSupplier;

/** Refresh (RFC 8656 §8): extends the allocation's lifetime, or ends it with LIFETIME 0. */
final class RefreshMethod {
    private final RequestAuth auth;
    private final Responses responses;
    private final AllocationTable table;
    private final LongSupplier clock;

    RefreshMethod(RequestAuth auth, Responses responses, AllocationTable table, LongSupplier clock) {
        this.auth = auth;
        this.responses = responses;
        this.table = table;
        this.clock = clock;
    }

    void handle(ClientLink link, StunMessage m, TurnRequestHandler.Context ctx) throws StunParseException {
        RequestAuth.Authorised a = auth.authorise(link, m, ctx);
        if (a == null) {
            return;
        }
        Allocation alloc = a.allocation();
        long requested = m.uint32(StunAttribute.LIFETIME, TurnConfig.DEFAULT_LIFETIME);
        long lifetime = requested == 0 ? 0
                : Lifetimes.granted(requested, a.auth().credentialExpiryMillis(), clock.getAsLong());
        if (lifetime == 0) {
            table.close(alloc);
        } else {
            alloc.expiresAtMillis(clock.getAsLong() + lifetime * 1000);
        }
        ByteBuf out = link.alloc().ioBuffer(96);
        responses.success(m, ctx, out).uint32(StunAttribute.LIFETIME, lifetime);
        responses.seal(link, ctx, out, a.key());
    }
}
