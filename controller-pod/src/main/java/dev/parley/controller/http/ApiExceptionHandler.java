package dev.parley.controller.http;

import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;

/** Turns {@link ApiException} into problem+json. */
@Produces
@Singleton
@Requires(classes = {ApiException.class, ExceptionHandler.class})
public class ApiExceptionHandler implements ExceptionHandler<ApiException, HttpResponse<?>> {
    @Override
    @SuppressWarnings("rawtypes") // the framework interface declares a raw HttpRequest
    public HttpResponse<?> handle(HttpRequest request, ApiException exception) {
        return Problems.of(exception);
    }
}
