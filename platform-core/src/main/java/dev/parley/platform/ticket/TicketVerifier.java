package dev.parley.platform.ticket;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import java.text.ParseException;
import java.time.Clock;
import java.util.Date;

import static dev.parley.platform.ticket.TicketRejectedException.Reason.*;

/**
 * Checks a connect ticket: ES256 signature with the controller's public key, expiry (≤ 30 s lifetime),
 * the expected SFU, and single use through a {@link JtiReplayGuard}. Used by the SFU and by the
 * controller's signaling socket.
 */
public final class TicketVerifier {
    private static final long CLOCK_SKEW_SECONDS = 2;

    private final ECDSAVerifier verifier;
    private final Clock clock;
    private final JtiReplayGuard replayGuard;

    public TicketVerifier(ECKey publicKey, Clock clock, JtiReplayGuard replayGuard) {
        try {
            this.verifier = new ECDSAVerifier(publicKey.toPublicJWK());
        } catch (JOSEException e) {
            throw new IllegalArgumentException("not an ES256 public key", e);
        }
        this.clock = clock;
        this.replayGuard = replayGuard;
    }

    public TicketVerifier(ECKey publicKey) {
        this(publicKey, Clock.systemUTC(), new JtiReplayGuard());
    }

    /**
     * Verifies and consumes the ticket (the jti is used up).
     *
     * @param expectedSfu this SFU's pod name, or null when the caller is not an SFU (controller socket)
     */
    public ConnectTicketClaims verifyAndConsume(String token, String expectedSfu) throws TicketRejectedException {
        ConnectTicketClaims c = verify(token, expectedSfu);
        if (!replayGuard.firstUse(c.jti(), c.exp())) {
            throw new TicketRejectedException(REPLAYED, "ticket already used");
        }
        return c;
    }

    /** Verifies without consuming the jti. */
    public ConnectTicketClaims verify(String token, String expectedSfu) throws TicketRejectedException {
        if (token == null || token.isBlank() || token.length() > 4096) {
            throw new TicketRejectedException(MALFORMED, "missing or oversized ticket");
        }
        SignedJWT jwt;
        JWTClaimsSet cs;
        try {
            jwt = SignedJWT.parse(token);
            cs = jwt.getJWTClaimsSet();
        } catch (ParseException e) {
            throw new TicketRejectedException(MALFORMED, "ticket is not a compact JWS");
        }
        if (!JWSAlgorithm.ES256.equals(jwt.getHeader().getAlgorithm())) {
            throw new TicketRejectedException(BAD_SIGNATURE, "ticket must be ES256");
        }
        try {
            if (!jwt.verify(verifier)) {
                throw new TicketRejectedException(BAD_SIGNATURE, "ticket signature invalid");
            }
        } catch (JOSEException e) {
            throw new TicketRejectedException(BAD_SIGNATURE, "ticket signature invalid");
        }
        long now = clock.instant().getEpochSecond();
        Date expDate = cs.getExpirationTime();
        if (expDate == null) {
            throw new TicketRejectedException(MALFORMED, "ticket has no exp");
        }
        long exp = expDate.getTime() / 1000;
        if (exp + CLOCK_SKEW_SECONDS <= now) {
            throw new TicketRejectedException(EXPIRED, "ticket expired");
        }
        if (exp - now > TicketSigner.MAX_LIFETIME.getSeconds() + CLOCK_SKEW_SECONDS) {
            throw new TicketRejectedException(LIFETIME_TOO_LONG, "ticket lifetime above 30 s");
        }
        try {
            String mid = cs.getStringClaim("mid");
            String pid = cs.getStringClaim("pid");
            Long gen = cs.getLongClaim("gen");
            String sfu = cs.getStringClaim("sfu");
            String dk = cs.getStringClaim("dk");
            String jti = cs.getJWTID();
            if (mid == null || pid == null || gen == null || sfu == null || jti == null) {
                throw new TicketRejectedException(MALFORMED, "ticket misses claims");
            }
            if (expectedSfu != null && !expectedSfu.equals(sfu)) {
                throw new TicketRejectedException(WRONG_SFU, "ticket is for another SFU");
            }
            return new ConnectTicketClaims(mid, pid, gen, sfu, dk == null ? "" : dk, exp, jti);
        } catch (ParseException e) {
            throw new TicketRejectedException(MALFORMED, "ticket claims have wrong types");
        }
    }
}
