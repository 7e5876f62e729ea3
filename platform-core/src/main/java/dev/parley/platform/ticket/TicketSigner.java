package dev.parley.platform.ticket;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.impl.ECDSA;
import com.nimbusds.jose.jwk.ECKey;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Issues connect tickets (compact JWS, ES256) on the controller, one per transport request. The header is
 * the same for every ticket of a key, so it is encoded once; the claims are written straight to JSON; the
 * JCA signature objects (initialised with the key) are pooled and reused, since {@code sign()} resets them.
 * The output is an ordinary JWS that {@link TicketVerifier} (nimbus) checks.
 */
public final class TicketSigner {
    public static final Duration MAX_LIFETIME = Duration.ofSeconds(30);
    static final JOSEObjectType TYPE = new JOSEObjectType("parley-connect+jwt");
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    /** ES256's JOSE signature is R || S, 32 bytes each. */
    private static final int ES256_SIGNATURE_BYTES = 64;

    private final ECKey key;
    private final ECPrivateKey privateKey;
    private final String encodedHeader;
    private final Queue<Signature> signatures = new ConcurrentLinkedQueue<>();
    private final Clock clock;

    public TicketSigner(ECKey privateKey, Clock clock) {
        try {
            this.key = privateKey;
            new ECDSASigner(privateKey); // rejects anything that is not a P-256 private key
            this.privateKey = privateKey.toECPrivateKey();
            this.encodedHeader = new JWSHeader.Builder(JWSAlgorithm.ES256).type(TYPE).keyID(key.getKeyID()).build()
                    .toBase64URL().toString();
            this.clock = clock;
            release(newSignature()); // fail now, not on the first transport, if the JDK cannot sign
        } catch (JOSEException | GeneralSecurityException | IllegalArgumentException e) {
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
        Instant now = clock.instant();
        long exp = now.plus(life).getEpochSecond();
        ConnectTicketClaims c = new ConnectTicketClaims(meetingId, participantId, generation, sfuPod,
                deviceKeyId == null ? "" : deviceKeyId, exp, UUID.randomUUID().toString());
        StringBuilder json = new StringBuilder(256).append('{');
        string(json, "mid", c.mid()).append(',');
        string(json, "pid", c.pid()).append(',');
        json.append("\"gen\":").append(c.gen()).append(',');
        string(json, "sfu", c.sfu()).append(',');
        string(json, "dk", c.dk()).append(',');
        json.append("\"exp\":").append(exp).append(',');
        json.append("\"iat\":").append(now.getEpochSecond()).append(',');
        string(json, "jti", c.jti()).append('}');
        String signingInput = encodedHeader + '.' + B64.encodeToString(json.toString().getBytes(StandardCharsets.UTF_8));
        Signature sig = signatures.poll();
        try {
            if (sig == null) {
                sig = newSignature();
            }
            sig.update(signingInput.getBytes(StandardCharsets.US_ASCII));
            byte[] jose = ECDSA.transcodeSignatureToConcat(sig.sign(), ES256_SIGNATURE_BYTES);
            release(sig);
            return new IssuedTicket(signingInput + '.' + B64.encodeToString(jose), c);
        } catch (GeneralSecurityException | JOSEException e) {
            throw new IllegalStateException("ticket signing failed", e); // the failed object is not reused
        }
    }

    private Signature newSignature() throws GeneralSecurityException {
        Signature s = Signature.getInstance("SHA256withECDSA");
        s.initSign(privateKey);
        return s;
    }

    private void release(Signature s) {
        signatures.offer(s);
    }

    private static StringBuilder string(StringBuilder json, String name, String value) {
        json.append('"').append(name).append("\":\"");
        JsonStringEncoder.getInstance().quoteAsString(value, json);
        return json.append('"');
    }

    /** A signed ticket and what it says. {@code toString} hides the token (no secrets in logs). */
    public record IssuedTicket(String token, ConnectTicketClaims claims) {
        @Override
        public String toString() {
            return "IssuedTicket[jti=" + claims.jti() + ", exp=" + claims.exp() + "]";
        }
    }
}
