package dev.parley.controller.auth;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import io.micronaut.security.filters.AuthenticationFetcher;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bearer tokens through {@link BearerAuthenticationFetcher} on a running controller: it is the only
 * authentication fetcher and takes the lean path; tokens are honoured, re-used (cached) tokens too, and
 * anything else is 401 — a token under another scheme, a forged or expired token after a valid one was cached,
 * and the tenant comes from the token only.
 */
class BearerAuthenticationIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");
    static Scenario s;

    @BeforeAll
    static void up() throws Exception {
        s = new Scenario(h).meeting(true);
    }

    @Test
    void theLeanFetcherIsTheOnlyOne() {
        Collection<AuthenticationFetcher> fetchers = new ArrayList<>(h.controllers.get(0).getBeansOfType(AuthenticationFetcher.class));
        assertThat(fetchers).hasSize(1);
        assertThat(fetchers.iterator().next()).isInstanceOf(BearerAuthenticationFetcher.class);
        assertThat(((BearerAuthenticationFetcher) fetchers.iterator().next()).lean()).isTrue();
    }

    @Test
    void validTokensAreHonouredAndEverythingElseIs401() throws Exception {
        String path = "/v1/meetings/" + s.meetingId;
        for (int i = 0; i < 3; i++) { // the first verifies, the others come from the cache
            assertThat(h.call(0, "GET", path, s.hostToken, null, null).status()).isEqualTo(200);
        }
        String forged = ControllerHarness.token(s.tenant, s.hostPrincipal, "another-secret-0123456789abcdef0123456789",
                Duration.ofHours(1));
        String expired = ControllerHarness.token(s.tenant, s.hostPrincipal, ControllerHarness.JWT_SECRET, Duration.ofSeconds(-120));
        assertThat(h.call(0, "GET", path, forged, null, null).status()).isEqualTo(401);
        assertThat(h.call(0, "GET", path, expired, null, null).status()).isEqualTo(401);
        assertThat(h.call(0, "GET", path, null, null, null).status()).isEqualTo(401);
        // another tenant's valid token does not see the meeting
        assertThat(h.call(0, "GET", path, ControllerHarness.token(UUID.randomUUID(), s.hostPrincipal), null, null).status())
                .isEqualTo(404);
        // the valid token under another scheme, or with the scheme only, is no bearer token
        for (String header : new String[]{"Basic " + s.hostToken, "Bearer", "Bearer ", s.hostToken}) {
            HttpResponse<String> r = h.http.send(java.net.http.HttpRequest.newBuilder(URI.create(h.base(0) + path))
                    .header("Authorization", header).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(header.length() > 12 ? header.substring(0, 12) + "…" : header).isEqualTo(401);
        }
        // and the valid token still works afterwards
        assertThat(h.call(0, "GET", path, s.hostToken, null, null).status()).isEqualTo(200);
    }

    @Test
    void anonymousRoutesNeedNoToken() {
        assertThat(h.call(h.base(0), "GET", "/health", null, null, null, null).status()).isEqualTo(200);
        // a forged token on an anonymous route is not an error (the route asks for no authentication)
        String forged = ControllerHarness.token(s.tenant, s.hostPrincipal, "another-secret-0123456789abcdef0123456789",
                Duration.ofHours(1));
        assertThat(h.call(h.base(0), "GET", "/health", forged, null, null, null).status()).isEqualTo(200);
    }

    /** A token of the scenario's host signed with the controller's real key, with only the claims given. */
    private static String hostToken(Date exp, Date nbf) throws Exception {
        JWTClaimsSet.Builder b = new JWTClaimsSet.Builder().subject(s.hostPrincipal.toString())
                .claim("tid", s.tenant.toString()).claim("name", "n").issueTime(new Date());
        if (exp != null) {
            b.expirationTime(exp);
        }
        if (nbf != null) {
            b.notBeforeTime(nbf);
        }
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), b.build());
        jwt.sign(new MACSigner(ControllerHarness.JWT_SECRET.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    private static Date in(Duration d) {
        return new Date(System.currentTimeMillis() + d.toMillis());
    }

    /**
     * {@code exp} is required and {@code nbf} honoured (30 s clock-skew allowance) on every bearer path: reads,
     * writes, and the transport request that hands out the signaling socket's connect ticket.
     */
    @Test
    void tokensWithoutExpOrNotYetValidAre401() throws Exception {
        String noExp = hostToken(null, null);
        String notYet = hostToken(in(Duration.ofHours(1)), in(Duration.ofMinutes(10)));
        String valid = hostToken(in(Duration.ofHours(1)), null);
        String validNbfNow = hostToken(in(Duration.ofHours(1)), in(Duration.ofSeconds(-5)));
        String withinSkew = hostToken(in(Duration.ofHours(1)), in(Duration.ofSeconds(10)));
        String m = "/v1/meetings/" + s.meetingId;
        String transport = m + "/participants/" + s.hostPid + "/transports";
        String body = "{\"expected_transport_generation\":0,\"device_key_id\":\"d\"}";
        for (int i = 0; i < 2; i++) { // the second round would be answered from the validator's cache
            for (String[] c : new String[][]{{"no exp", noExp}, {"nbf in 10 min", notYet}}) {
                var read = h.call(0, "GET", m, c[1], null, null);
                assertThat(read.status()).as(c[0] + " read: " + read.raw()).isEqualTo(401);
                assertThat(read.text("code")).as(c[0]).isEqualTo("unauthenticated");
                var t = h.call(0, "POST", transport, c[1], "exp-t-" + i, body);
                assertThat(t.status()).as(c[0] + " transport: " + t.raw()).isEqualTo(401);
                var created = h.call(0, "POST", "/v1/meetings", c[1], "exp-c-" + i,
                        "{\"title\":\"t\",\"waiting_room_enabled\":false,\"encryption_mode\":\"transport\"}");
                assertThat(created.status()).as(c[0] + " create: " + created.raw()).isEqualTo(401);
            }
        }
        for (String[] c : new String[][]{{"valid", valid}, {"nbf 5 s ago", validNbfNow}, {"nbf 10 s ahead (skew)", withinSkew}}) {
            var read = h.call(0, "GET", m, c[1], null, null);
            assertThat(read.status()).as(c[0] + ": " + read.raw()).isEqualTo(200);
        }
        var t = h.call(0, "POST", transport, valid, "exp-t-valid", body);
        assertThat(t.status()).as(t.raw()).isEqualTo(200);
        assertThat(t.text("connect_ticket")).isNotEmpty();
    }
}
