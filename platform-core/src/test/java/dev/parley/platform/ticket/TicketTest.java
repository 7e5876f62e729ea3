package dev.parley.platform.ticket;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TicketTest {
    final ECKey key = TicketKeys.generate();
    final TicketSigner signer = new TicketSigner(key);

    private TicketVerifier verifier() {
        return new TicketVerifier(key.toPublicJWK());
    }

    private static TicketRejectedException.Reason reason(ThrowingCall c) {
        try {
            c.run();
        } catch (TicketRejectedException e) {
            return e.reason();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("not rejected");
    }

    interface ThrowingCall {
        void run() throws Exception;
    }

    @Test
    void validTicketIsAcceptedOnceAndCarriesItsClaims() throws Exception {
        var t = signer.issue("m1", "p1", 3, "sfu-a", "dk-1", Duration.ofSeconds(30));
        TicketVerifier v = verifier();
        ConnectTicketClaims c = v.verifyAndConsume(t.token(), "sfu-a");
        assertThat(c).isEqualTo(t.claims());
        assertThat(c.gen()).isEqualTo(3);
        assertThat(reason(() -> v.verifyAndConsume(t.token(), "sfu-a")))
                .isEqualTo(TicketRejectedException.Reason.REPLAYED);
        assertThat(t.toString()).doesNotContain(t.token());
    }

    @Test
    void claimsNeedingJsonEscapesRoundTripAndHeaderIsTheDocumentedOne() throws Exception {
        String dk = "dk \"quoted\" \\ back\nslash \u00e9\u4e2d\u0001";
        var t = signer.issue("m\"1", "p1", Long.MAX_VALUE, "sfu-a", dk, Duration.ofSeconds(30));
        ConnectTicketClaims c = verifier().verifyAndConsume(t.token(), "sfu-a");
        assertThat(c).isEqualTo(t.claims());
        assertThat(c.dk()).isEqualTo(dk);
        assertThat(c.gen()).isEqualTo(Long.MAX_VALUE);
        var jwt = com.nimbusds.jwt.SignedJWT.parse(t.token());
        assertThat(jwt.getHeader().getAlgorithm()).isEqualTo(com.nimbusds.jose.JWSAlgorithm.ES256);
        assertThat(jwt.getHeader().getType()).isEqualTo(TicketSigner.TYPE);
        assertThat(jwt.getJWTClaimsSet().getIssueTime()).isNotNull();
    }

    @Test
    void concurrentIssuersShareThePooledSignaturesSafely() throws Exception {
        TicketVerifier v = verifier();
        java.util.List<java.util.concurrent.Future<ConnectTicketClaims>> fs = new java.util.ArrayList<>();
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(8)) {
            for (int i = 0; i < 200; i++) {
                String pid = "p" + i;
                fs.add(pool.submit(() -> v.verifyAndConsume(
                        signer.issue("m1", pid, 1, "sfu-a", "dk", Duration.ofSeconds(30)).token(), "sfu-a")));
            }
            for (int i = 0; i < fs.size(); i++) {
                assertThat(fs.get(i).get().pid()).isEqualTo("p" + i);
            }
        }
    }

    @Test
    void lifetimeIsCappedAtThirtySeconds() {
        var t = signer.issue("m1", "p1", 1, "sfu-a", "dk", Duration.ofMinutes(10));
        assertThat(t.claims().exp() - Instant.now().getEpochSecond()).isBetween(28L, 30L);
    }

    @Test
    void wrongSfuIsRefused() {
        var t = signer.issue("m1", "p1", 1, "sfu-a", "dk", Duration.ofSeconds(30));
        assertThat(reason(() -> verifier().verifyAndConsume(t.token(), "sfu-b")))
                .isEqualTo(TicketRejectedException.Reason.WRONG_SFU);
    }

    @Test
    void expiredTicketIsRefused() {
        Clock past = Clock.fixed(Instant.now().minusSeconds(120), ZoneOffset.UTC);
        var t = new TicketSigner(key, past).issue("m1", "p1", 1, "sfu-a", "dk", Duration.ofSeconds(30));
        assertThat(reason(() -> verifier().verifyAndConsume(t.token(), "sfu-a")))
                .isEqualTo(TicketRejectedException.Reason.EXPIRED);
    }

    @Test
    void ticketSignedByAnotherKeyIsRefused() {
        var other = new TicketSigner(TicketKeys.generate()).issue("m1", "p1", 1, "sfu-a", "dk", Duration.ofSeconds(30));
        assertThat(reason(() -> verifier().verifyAndConsume(other.token(), "sfu-a")))
                .isEqualTo(TicketRejectedException.Reason.BAD_SIGNATURE);
    }

    @Test
    void tamperedPayloadIsRefused() {
        var t = signer.issue("m1", "p1", 1, "sfu-a", "dk", Duration.ofSeconds(30));
        String[] parts = t.token().split("\\.");
        String forgedClaims = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
                ("{\"mid\":\"m1\",\"pid\":\"p2\",\"gen\":1,\"sfu\":\"sfu-a\",\"dk\":\"dk\",\"exp\":"
                        + (Instant.now().getEpochSecond() + 20) + ",\"jti\":\"x\"}").getBytes());
        String forged = parts[0] + "." + forgedClaims + "." + parts[2];
        assertThat(reason(() -> verifier().verifyAndConsume(forged, "sfu-a")))
                .isEqualTo(TicketRejectedException.Reason.BAD_SIGNATURE);
    }

    @Test
    void hmacAlgorithmConfusionIsRefused() throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), new JWTClaimsSet.Builder()
                .claim("mid", "m1").claim("pid", "p1").claim("gen", 1).claim("sfu", "sfu-a")
                .expirationTime(new Date(System.currentTimeMillis() + 10_000)).jwtID("j").build());
        jwt.sign(new MACSigner(new byte[32]));
        assertThat(reason(() -> verifier().verifyAndConsume(jwt.serialize(), "sfu-a")))
                .isEqualTo(TicketRejectedException.Reason.BAD_SIGNATURE);
    }

    @Test
    void overlongLifetimeIsRefusedEvenWhenSigned() throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.ES256), new JWTClaimsSet.Builder()
                .claim("mid", "m1").claim("pid", "p1").claim("gen", 1).claim("sfu", "sfu-a")
                .expirationTime(new Date(System.currentTimeMillis() + 3_600_000)).jwtID("j").build());
        jwt.sign(new ECDSASigner(key));
        assertThat(reason(() -> verifier().verifyAndConsume(jwt.serialize(), "sfu-a")))
                .isEqualTo(TicketRejectedException.Reason.LIFETIME_TOO_LONG);
    }

    @Test
    void garbageIsMalformed() {
        for (String g : new String[]{"", "abc", "a.b.c", "x".repeat(5000)}) {
            assertThat(reason(() -> verifier().verifyAndConsume(g, "sfu-a")))
                    .isEqualTo(TicketRejectedException.Reason.MALFORMED);
        }
    }

    @Test
    void privateKeyRoundTripsThroughJwkText() {
        ECKey parsed = TicketKeys.parsePrivate(key.toJSONString());
        var t = new TicketSigner(parsed).issue("m", "p", 1, "s", "d", Duration.ofSeconds(5));
        assertThat(reason(() -> {
            TicketVerifier v = new TicketVerifier(TicketKeys.parse(key.toPublicJWK().toJSONString()));
            v.verifyAndConsume(t.token(), "s");
            v.verifyAndConsume(t.token(), "s");
        })).isEqualTo(TicketRejectedException.Reason.REPLAYED);
    }
}
