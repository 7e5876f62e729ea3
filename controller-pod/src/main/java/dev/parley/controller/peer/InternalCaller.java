package dev.parley.controller.peer;

import dev.parley.controller.http.ApiException;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.platform.internal.InternalAuth;
import jakarta.inject.Singleton;

/**
 * The check every internal endpoint makes first: the request carries the shared internal secret
 * ({@code PARLEY_INTERNAL_SECRET}), compared in constant time. Without a configured secret nothing is accepted.
 */
@Singleton
public final class InternalCaller {
    private final InternalAuth auth;

    public InternalCaller(ParleyConfig cfg) {
        this.auth = cfg.internalSecret() == null ? null : new InternalAuth(cfg.internalSecret());
    }

    /** Throws 401 {@code unauthenticated} unless the Authorization header carries the secret. */
    public void require(String authorizationHeader) {
        if (auth == null || !auth.accepts(authorizationHeader)) {
            throw new ApiException(401, "unauthenticated", "internal secret required");
        }
    }
}
