package dev.parley.platform.ticket;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import java.time.Clock;
import java.time.Duration;
import java.util.Date;
import java.util.UUID;

/** Issues connect tickets (compact JWS, ES256) on the controller. */
public final class TicketSigner {
    public static final Duration MAX_LIFETIME = Duration.ofSeconds(30);
    static final JOSEObjectType TYPE = new JOSEObjectType("parley-connect+jwt");

    private final ECKey key;
    private final ECDSASigner signer;
    private final Clock clock;

    public TicketSigner(ECKey privateKey, Clock clock) {
        try {
            this.key = privateKey;
            this.signer = new ECDSASigner(privateKey);
            this.clock = clock;
        } catch (JOSEException e) {
            throw new IllegalArgumentException("not an ES256 private key", e);
        }
    }

    public TicketSigner(ECKey privateKey) {
        this(privateKey, Clock.systemUTC());
    }

    /** The public half, for SFUs ({@code PARLEY_TICKET_PUBLIC_JWK}). */
    public ECKey publicKey() {
        return key.toPublicJWK();
    }

    /** A ticket with a lifetime capped at 30 s. */
    public IssuedTicket issue(String meetingId, String participantId, long generation, String sfuPod,
                              String deviceKeyId, Duration lifetime) {
        Duration life = lifetime.compareTo(MAX_LIFETIME) > 0 ? MAX_LIFETIME : lifetime;
        long exp = clock.instant().plus(life).getEpochSecond();
        ConnectTicketClaims c = new ConnectTicketClaims(meetingId, participantId, generation, sfuPod,
                deviceKeyId == null ? "" : deviceKeyId, exp, UUID.randomUUID().toString());
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .claim("mid", c.mid())
                .claim("pid", c.pid())
                .claim("gen", c.gen())
                .claim("sfu", c.sfu())
                .claim("dk", c.dk())
                .expirationTime(new Date(exp * 1000))
                .issueTime(Date.from(clock.instant()))
                .jwtID(c.jti())
                .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.ES256).type(TYPE).keyID(key.getKeyID()).build(),
                claims);
        try {
            jwt.sign(signer);
        } catch (JOSEException e) {
            throw new IllegalStateException("ticket signing failed", e);
        }
        return new IssuedTicket(jwt.serialize(), c);
    }

    /** A signed ticket and what it says. {@code toString} hides the token (no secrets in logs). */
    public record IssuedTicket(String token, ConnectTicketClaims claims) {
        @Override
        public String toString() {
            return "IssuedTicket[jti=" + claims.jti() + ", exp=" + claims.exp() + "]";
        }
    }
}
