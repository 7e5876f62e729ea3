package dev.parley.turn.server;

import dev.parley.media.stun.StunAttribute;
import dev.parley.media.stun.StunClass;
import dev.parley.media.stun.StunMessage;
import dev.parley.media.stun.StunMessageType;
import dev.parley.media.stun.StunMessageWriter;
import dev.parley.turn.link.ClientLink;
import dev.parley.turn.metrics.TurnMetrics;
import io.netty.buffer.ByteBuf;

/**
 * Writes the control plane's responses: errors (counted, signed once the request authenticated) and signed
 * successes. Every response names the server in SOFTWARE and ends with FINGERPRINT. Stateless; the writer is the
 * calling loop's {@link TurnRequestHandler.Context}.
 */
final class Responses {
    static final String SOFTWARE = "Parley TURN";

    private final TurnMetrics metrics;

    Responses(TurnMetrics metrics) {
        this.metrics = metrics;
    }

    /** An error response with the standard reason phrase (nothing for an indication). */
    void error(ClientLink link, StunMessage m, TurnRequestHandler.Context ctx, int code, byte[] key, int unknownAttr) {
        error(link, m, ctx, code, null, key, unknownAttr);
    }

    /**
     * An error response to a request: ERROR-CODE, UNKNOWN-ATTRIBUTES if {@code unknownAttr >= 0}, SOFTWARE,
     * MESSAGE-INTEGRITY if {@code key} is known, FINGERPRINT. Indications get nothing.
     */
    void error(ClientLink link, StunMessage m, TurnRequestHandler.Context ctx, int code, String reason, byte[] key,
               int unknownAttr) {
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

    /** Starts a success response to {@code m} in {@code out}; the caller adds attributes, then {@link #seal}s. */
    StunMessageWriter success(StunMessage m, TurnRequestHandler.Context ctx, ByteBuf out) {
        return ctx.writer.begin(out, StunMessageType.of(m.method(), StunClass.SUCCESS_RESPONSE), m);
    }

    /** Ends a success response (SOFTWARE, MESSAGE-INTEGRITY under {@code key}, FINGERPRINT) and sends it. */
    void seal(ClientLink link, TurnRequestHandler.Context ctx, ByteBuf out, byte[] key) {
        ctx.writer.string(StunAttribute.SOFTWARE, SOFTWARE).messageIntegrity(key).fingerprint();
        link.writeAndFlush(out);
    }
}
