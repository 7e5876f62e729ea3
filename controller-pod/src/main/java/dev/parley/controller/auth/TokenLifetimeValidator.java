package dev.parley.controller.auth;

import com.nimbusds.jwt.JWTClaimsSet;
import io.micronaut.security.token.Claims;
import io.micronaut.security.token.jwt.validator.GenericJwtClaimsValidator;
import io.micronaut.security.token.jwt.validator.JWTClaimsSetUtils;
import jakarta.inject.Singleton;

import java.util.Date;
import java.util.function.LongSupplier;

/**
 * Every bearer JWT must say when it ends and may not be used before it starts: {@code exp} is required and must
 * be in the future; {@code nbf}, when present, may be at most {@link #CLOCK_SKEW_SECONDS} ahead of our clock (the
 * issuer's clock may run a little fast). Micronaut checks {@code exp} only when present and ignores {@code nbf} by
 * default, so a token without {@code exp} was valid forever. Runs inside the framework's JWT validation (every
 * validator is applied to every token), so it covers every route that takes a bearer token; the validator's cache
 * ({@link CachingTokenValidator}) never holds a token this refused.
 */
@Singleton
public final class TokenLifetimeValidator<T> implements GenericJwtClaimsValidator<T> {
    static final long CLOCK_SKEW_SECONDS = 30;

    private final LongSupplier clock;

    public TokenLifetimeValidator() {
        this(System::currentTimeMillis);
    }

    TokenLifetimeValidator(LongSupplier clock) {
        this.clock = clock;
    }

    @Override
    public boolean validate(Claims claims, T request) {
        JWTClaimsSet set = JWTClaimsSetUtils.jwtClaimsSetFromClaims(claims);
        long now = clock.getAsLong();
        Date exp = set.getExpirationTime();
        if (exp == null || exp.getTime() <= now) {
            return false;
        }
        Date nbf = set.getNotBeforeTime();
        return nbf == null || nbf.getTime() <= now + CLOCK_SKEW_SECONDS * 1000;
    }
}
