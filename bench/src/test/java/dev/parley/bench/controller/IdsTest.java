package dev.parley.bench.controller;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class IdsTest {
    private static final String SECRET = "test-hmac-secret-0123456789abcdef0123456789";

    @Test
    void tokensAreHs256JwsThatNimbusVerifies() throws Exception {
        Ids ids = new Ids(SECRET, 7);
        UUID tenant = ids.uuid();
        UUID principal = ids.uuid();
        SignedJWT jwt = SignedJWT.parse(ids.token(tenant, principal));
        assertThat(jwt.getHeader().getAlgorithm()).isEqualTo(JWSAlgorithm.HS256);
        assertThat(jwt.verify(new MACVerifier(SECRET.getBytes(StandardCharsets.UTF_8)))).isTrue();
        assertThat(jwt.verify(new MACVerifier("another-secret-0123456789abcdef0123456789".getBytes(StandardCharsets.UTF_8)))).isFalse();
        assertThat(jwt.getJWTClaimsSet().getSubject()).isEqualTo(principal.toString());
        assertThat(jwt.getJWTClaimsSet().getStringClaim("tid")).isEqualTo(tenant.toString());
        long exp = jwt.getJWTClaimsSet().getExpirationTime().getTime();
        assertThat(exp).isBetween(System.currentTimeMillis() + 3_500_000, System.currentTimeMillis() + 3_700_000);
    }

    @Test
    void uuidsAreDistinctVersion4() {
        Ids ids = new Ids(SECRET, 7);
        Set<UUID> seen = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            UUID u = ids.uuid();
            assertThat(u.version()).isEqualTo(4);
            assertThat(u.variant()).isEqualTo(2);
            assertThat(UUID.fromString(u.toString())).isEqualTo(u);
            assertThat(seen.add(u)).isTrue();
        }
    }
}
