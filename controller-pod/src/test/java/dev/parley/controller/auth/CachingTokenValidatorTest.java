package dev.parley.controller.auth;

import io.micronaut.security.authentication.Authentication;
import io.micronaut.security.token.jwt.validator.ReactiveJsonWebTokenValidator;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cache in front of Micronaut's JWT validation: a verified token is answered without verifying it
 * again, but never past its {@code exp} or the cache's maximum age, and a rejected token is never cached.
 * (The real validation path with HMAC tokens, expired and forged ones, runs in BadInputIT.)
 */
class CachingTokenValidatorTest {
    /** Stands in for the signature check: accepts tokens starting with "good", counts calls. */
    static final class CountingValidator implements ReactiveJsonWebTokenValidator<Object, Object> {
        final AtomicInteger calls = new AtomicInteger();
        volatile long expMillis;

        @Override
        public Publisher<Object> validate(String token, Object request) {
            return s -> s.onSubscribe(new Subscription() {
                @Override
                public void request(long n) {
                    s.onComplete();
                }

                @Override
                public void cancel() {
                }
            });
        }

        @Override
        public Publisher<Authentication> validateToken(String token, Object request) {
            calls.incrementAndGet();
            List<Authentication> out = token.startsWith("good")
                    ? List.of(Authentication.build("p-" + token, Map.of("exp", new Date(expMillis))))
                    : List.of();
            return s -> s.onSubscribe(new Subscription() {
                boolean done;

                @Override
                public void request(long n) {
                    if (!done) {
                        done = true;
                        out.forEach(s::onNext);
                        s.onComplete();
                    }
                }

                @Override
                public void cancel() {
                    done = true;
                }
            });
        }
    }

    static List<Authentication> collect(Publisher<Authentication> p) {
        List<Authentication> out = new ArrayList<>();
        p.subscribe(new Subscriber<>() {
            @Override
            public void onSubscribe(Subscription s) {
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(Authentication a) {
                out.add(a);
            }

            @Override
            public void onError(Throwable t) {
                throw new AssertionError(t);
            }

            @Override
            public void onComplete() {
            }
        });
        return out;
    }

    @Test
    void verifiedTokenIsReusedUntilItsExpiry() {
        AtomicLong now = new AtomicLong(1_000_000);
        CountingValidator inner = new CountingValidator();
        inner.expMillis = now.get() + 10_000;
        CachingTokenValidator<Object, Object> v = new CachingTokenValidator<>(inner, now::get);

        assertThat(collect(v.validateToken("good-1", null))).extracting(Authentication::getName).containsExactly("p-good-1");
        assertThat(collect(v.validateToken("good-1", null))).extracting(Authentication::getName).containsExactly("p-good-1");
        assertThat(inner.calls).hasValue(1);

        now.addAndGet(10_000); // the token's exp: verify again (and the inner validator decides)
        inner.expMillis = now.get() - 1;
        collect(v.validateToken("good-1", null));
        assertThat(inner.calls).hasValue(2);
        collect(v.validateToken("good-1", null));
        assertThat(inner.calls).as("an already expired token is not cached").hasValue(3);
    }

    @Test
    void cacheAgeIsBoundedForLongLivedTokens() {
        AtomicLong now = new AtomicLong(5_000_000);
        CountingValidator inner = new CountingValidator();
        inner.expMillis = now.get() + 3_600_000;
        CachingTokenValidator<Object, Object> v = new CachingTokenValidator<>(inner, now::get);
        collect(v.validateToken("good-2", null));
        now.addAndGet(CachingTokenValidator.MAX_AGE_MS - 1);
        collect(v.validateToken("good-2", null));
        assertThat(inner.calls).hasValue(1);
        now.addAndGet(1);
        collect(v.validateToken("good-2", null));
        assertThat(inner.calls).hasValue(2);
    }

    @Test
    void rejectedTokensAreNeverCached() {
        CountingValidator inner = new CountingValidator();
        CachingTokenValidator<Object, Object> v = new CachingTokenValidator<>(inner, System::currentTimeMillis);
        assertThat(collect(v.validateToken("forged", null))).isEmpty();
        assertThat(collect(v.validateToken("forged", null))).isEmpty();
        assertThat(inner.calls).hasValue(2);
        assertThat(v.cachedTokens()).isZero();
    }

    @Test
    void expiryClaimShapes() {
        assertThat(CachingTokenValidator.expiryMillis(new Date(1234), 0)).isEqualTo(1234);
        assertThat(CachingTokenValidator.expiryMillis(12L, 0)).isEqualTo(12_000);
        assertThat(CachingTokenValidator.expiryMillis(null, 77)).isEqualTo(77);
    }
}
