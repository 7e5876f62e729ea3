package dev.parley.controller.auth;

import dev.parley.controller.http.ApiException;
import io.micronaut.security.authentication.Authentication;

import java.util.UUID;

/** Who is calling, taken only from the verified bearer token ({@code tid}, {@code sub}, {@code name}). */
public record Caller(UUID tenantId, UUID principalId, String name) {
    public static Caller of(Authentication auth) {
        if (auth == null) {
            throw new ApiException(401, "unauthenticated", "bearer token required");
        }
        Object tid = auth.getAttributes().get("tid");
        UUID tenant = uuid(tid == null ? null : tid.toString());
        UUID principal = uuid(auth.getName());
        Object name = auth.getAttributes().get("name");
        return new Caller(tenant, principal, name == null ? "" : name.toString());
    }

    private static UUID uuid(String s) {
        try {
            return UUID.fromString(s);
        } catch (RuntimeException e) {
            throw new ApiException(401, "invalid_token_claims", "token must carry UUID tid and sub claims");
        }
    }
}
