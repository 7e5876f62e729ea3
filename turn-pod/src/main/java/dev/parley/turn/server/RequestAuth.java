package dev.parley.turn.server;

import dev.parley.media.stun.StunAttribute;
import dev.parley.media.stun.StunClass;
import dev.parley.media.stun.StunErrorCode;
import dev.parley.media.stun.StunMessage;
import dev.parley.media.stun.StunMessageType;
import dev.parley.turn.allocation.Allocation;
import dev.parley.turn.auth.TurnAuthenticator;
import dev.parley.turn.auth.UnauthenticatedLimiter;
import dev.parley.turn.link.ClientLink;
import dev.parley.turn.metrics.TurnMetrics;
import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;
import java.util.function.LongSupplier;

/**
 * Authentication of requests (long-term credentials, stateless nonces) and the 401/438 challenge, and the check
 * that the authenticated user owns the client's allocation (437/441). Each method sends the error response itself
 * and returns null on failure.
 */
final class RequestAuth {
    private final TurnAuthenticator auth;
    private final UnauthenticatedLimiter limiter;
    private final TurnMetrics metrics;
    private final LongSupplier clock;
    private final ClientAllocations allocations;
    private final Responses responses;

    RequestAuth(TurnAuthenticator auth, UnauthenticatedLimiter limiter, TurnMetrics metrics, LongSupplier clock,
                ClientAllocations allocations, Responses responses) {
        this.auth = auth;
        this.limiter = limiter;
        this.metrics = metrics;
        this.clock = clock;
        this.allocations = allocations;
        this.responses = responses;
    }

    /** Authenticates; on failure sends the error response and returns null. */
    TurnAuthenticator.Result authenticate(ClientLink link, StunMessage m, TurnRequestHandler.Context ctx) {
        TurnAuthenticator.Result r = auth.authenticate(m, TurnAuthenticator.addressBytes(link.remote()), clock.getAsLong());
        if (r.ok()) {
            return r;
        }
        metrics.authFailure(r.failure());
        switch (r.outcome()) {
            case BAD_REQUEST -> responses.error(link, m, ctx, StunErrorCode.BAD_REQUEST,
                    "Bad Request: USERNAME, REALM and NONCE required", null, -1);
            case STALE_NONCE -> challenge(link, m, ctx, StunErrorCode.STALE_NONCE);
            default -> challenge(link, m, ctx, StunErrorCode.UNAUTHENTICATED);
        }
        return null;
    }

    /**
     * 401/438 with REALM and a fresh stateless NONCE: costs one HMAC and stores nothing. Limited per source only (a
     * flooding source loses its own answers, never anyone else's), against reflection.
     */
    private void challenge(ClientLink link, StunMessage m, TurnRequestHandler.Context ctx, int code) {
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
                .string(StunAttribute.SOFTWARE, Responses.SOFTWARE)
                .fingerprint();
        link.writeAndFlush(out);
    }

    /** Authenticates and finds the client's allocation with the same username; sends 401/438, 437 or 441 otherwise. */
    Authorised authorise(ClientLink link, StunMessage m, TurnRequestHandler.Context ctx) {
        TurnAuthenticator.Result a = authenticate(link, m, ctx);
        if (a == null) {
            return null;
        }
        Allocation alloc = allocations.of(link);
        if (alloc == null) {
            responses.error(link, m, ctx, StunErrorCode.ALLOCATION_MISMATCH, a.key(), -1);
            return null;
        }
        if (!alloc.username().equals(a.username())) {
            metrics.authFailure(TurnMetrics.AuthFailure.WRONG_CREDENTIALS);
            responses.error(link, m, ctx, StunErrorCode.WRONG_CREDENTIALS, a.key(), -1);
            return null;
        }
        return new Authorised(a, alloc);
    }

    /** An authenticated request and the allocation it may act on. */
    record Authorised(TurnAuthenticator.Result auth, Allocation allocation) {
        byte[] key() {
            return auth.key();
        }
    }
}
