package dev.parley.controller.auth;

import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import io.micronaut.security.filters.AuthenticationFetcher;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
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
}
