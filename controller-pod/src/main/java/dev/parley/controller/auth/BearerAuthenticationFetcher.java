package dev.parley.controller.auth;

import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.event.ApplicationEventPublisher;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.http.HttpRequest;
import io.micronaut.security.authentication.Authentication;
import io.micronaut.security.event.TokenValidatedEvent;
import io.micronaut.security.filters.AuthenticationFetcher;
import io.micronaut.security.filters.SecurityFilter;
import io.micronaut.security.token.TokenAuthenticationFetcher;
import io.micronaut.security.token.reader.TokenReader;
import io.micronaut.security.token.reader.TokenResolver;
import io.micronaut.security.token.validator.TokenValidator;
import jakarta.inject.Singleton;
import org.reactivestreams.Publisher;

import java.util.List;
import java.util.Optional;

/**
 * Micronaut Security's bearer-token authentication, without its per-request extras. The framework's
 * {@link TokenAuthenticationFetcher} announces every validated token as a {@code TokenValidatedEvent}, and
 * building that event resolves the request's host (a bean lookup of the embedded server, proxy-header parsing,
 * URI building) and locale on the event loop: 4.6 % of the controller's CPU samples in the benchmark, for an
 * event nobody listens to here. This fetcher reads the token with the same {@link TokenReader} bean, hands it
 * to the same {@link TokenValidator} bean (the JWT validator behind {@link CachingTokenValidator}), sets the
 * same request attribute on success, and publishes no event; no reactor pipeline is built per request. With
 * several readers or validators it is the framework's fetcher, unchanged.
 */
@Singleton
@Replaces(TokenAuthenticationFetcher.class)
public final class BearerAuthenticationFetcher implements AuthenticationFetcher<HttpRequest<?>> {
    private final TokenReader<HttpRequest<?>> reader;
    private final TokenValidator<HttpRequest<?>> validator;
    /** The framework's fetcher, used as it is when there is more than one token reader or validator. */
    private final TokenAuthenticationFetcher general;

    public BearerAuthenticationFetcher(List<TokenReader<HttpRequest<?>>> readers,
                                       List<TokenValidator<HttpRequest<?>>> validators,
                                       TokenResolver<HttpRequest<?>> resolver,
                                       ApplicationEventPublisher<TokenValidatedEvent> events) {
        boolean simple = readers.size() == 1 && validators.size() == 1;
        this.reader = simple ? readers.get(0) : null;
        this.validator = simple ? validators.get(0) : null;
        this.general = simple ? null : new TokenAuthenticationFetcher(validators, resolver, events);
    }

    @Override
    public Publisher<Authentication> fetchAuthentication(HttpRequest<?> request) {
        if (general != null) {
            return general.fetchAuthentication(request);
        }
        Optional<String> token = reader.findToken(request);
        if (token.isEmpty()) {
            return Publishers.empty();
        }
        String t = token.get();
        // the framework's attribute for a validated token (token propagation and the like read it there)
        return Publishers.then(validator.validateToken(t, request), a -> request.setAttribute(SecurityFilter.TOKEN, t));
    }

    /** Whether requests take the lean path (one token reader, one validator). */
    boolean lean() {
        return general == null;
    }

    @Override
    public int getOrder() {
        return TokenAuthenticationFetcher.ORDER;
    }
}
