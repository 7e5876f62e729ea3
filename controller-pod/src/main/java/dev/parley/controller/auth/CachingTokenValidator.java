package dev.parley.controller.auth;

import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.security.authentication.Authentication;
import io.micronaut.security.token.jwt.validator.ReactiveJsonWebTokenValidator;
import jakarta.inject.Singleton;
import org.reactivestreams.Publisher;

import java.time.Instant;
import java.util.Date;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Micronaut's JWT validator with a cache of tokens already verified in front. A client sends the same
 * bearer token with every call; verifying it each time (signature, claims, a hop to the blocking pool) was
 * a measurable share of the CPU of a join (bench/controller/README.md). A hit answers on the calling
 * thread. An entry lives until the token's {@code exp}, at most {@link #MAX_AGE_MS} (so a key removed from
 * the JWKS stops being honoured within that time). Failed validations are never cached.
 * {@link Installer} wraps the framework's validator bean, so there is still exactly one validator.
 */
public final class CachingTokenValidator<T, R> implements ReactiveJsonWebTokenValidator<T, R> {
    static final long MAX_AGE_MS = 60_000;
    static final int MAX_ENTRIES = 50_000;

    private final ReactiveJsonWebTokenValidator<T, R> delegate;
    private final LongSupplier clock;
    private final ConcurrentHashMap<String, Entry> cache = new ConcurrentHashMap<>();

    record Entry(Authentication auth, long expiresAtMs) {
    }

    CachingTokenValidator(ReactiveJsonWebTokenValidator<T, R> delegate, LongSupplier clock) {
        this.delegate = delegate;
        this.clock = clock;
    }

    /** Wraps every {@link ReactiveJsonWebTokenValidator} bean as it is created. */
    @Singleton
    static final class Installer implements BeanCreatedEventListener<ReactiveJsonWebTokenValidator<?, ?>> {
        @Override
        public ReactiveJsonWebTokenValidator<?, ?> onCreated(BeanCreatedEvent<ReactiveJsonWebTokenValidator<?, ?>> event) {
            return wrap(event.getBean());
        }

        private static <T, R> ReactiveJsonWebTokenValidator<T, R> wrap(ReactiveJsonWebTokenValidator<T, R> v) {
            return v instanceof CachingTokenValidator<T, R> ? v : new CachingTokenValidator<>(v, System::currentTimeMillis);
        }
    }

    @Override
    public Publisher<T> validate(String token, R request) {
        return delegate.validate(token, request);
    }

    @Override
    public int getOrder() {
        return delegate.getOrder();
    }

    @Override
    public Publisher<Authentication> validateToken(String token, R request) {
        long now = clock.getAsLong();
        Entry e = cache.get(token);
        if (e != null) {
            if (now < e.expiresAtMs()) {
                return Publishers.just(e.auth());
            }
            cache.remove(token, e);
        }
        return Publishers.then(delegate.validateToken(token, request), auth -> remember(token, auth, now));
    }

    private void remember(String token, Authentication auth, long now) {
        long until = Math.min(now + MAX_AGE_MS, expiryMillis(auth.getAttributes().get("exp"), now + MAX_AGE_MS));
        if (until <= now) {
            return;
        }
        if (cache.size() >= MAX_ENTRIES) {
            cache.values().removeIf(x -> x.expiresAtMs() <= now);
            if (cache.size() >= MAX_ENTRIES) {
                cache.clear(); // many distinct live tokens: start over rather than grow without bound
            }
        }
        cache.put(token, new Entry(auth, until));
    }

    /** The {@code exp} claim as epoch millis (nimbus gives a Date; other factories may give seconds). */
    static long expiryMillis(Object exp, long otherwise) {
        if (exp instanceof Date d) {
            return d.getTime();
        }
        if (exp instanceof Instant i) {
            return i.toEpochMilli();
        }
        if (exp instanceof Number n) {
            return n.longValue() * 1000;
        }
        return otherwise;
    }

    /** How many verified tokens are cached (for tests and diagnostics). */
    public int cachedTokens() {
        return cache.size();
    }
}
