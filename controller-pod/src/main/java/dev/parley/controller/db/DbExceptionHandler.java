package dev.parley.controller.db;

import dev.parley.controller.http.Problems;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place database failures become answers: a database we cannot reach (no connection from the pool,
 * connection refused or lost, server shutting down or starting: {@link DbFailures}) or that fails is a 503
 * {@code database_unavailable} with {@code Retry-After} (retryable; nothing was half written). An outage is
 * logged as one WARN line per request, a failing statement as an ERROR with its stack trace.
 */
@Produces
@Singleton
public class DbExceptionHandler implements ExceptionHandler<Db.DbException, HttpResponse<?>> {
    private static final Logger LOG = LoggerFactory.getLogger(DbExceptionHandler.class);

    @Override
    @SuppressWarnings("rawtypes") // the framework interface declares a raw HttpRequest
    public HttpResponse<?> handle(HttpRequest request, Db.DbException e) {
        if (e.connectionFailure()) {
            LOG.warn("database unreachable on {} {}: {}", request.getMethod(), request.getPath(), DbFailures.describe(e));
            return Problems.response(503, "database_unavailable", "the database is not reachable; retry later", null);
        }
        LOG.error("database failure on {} {}", request.getMethod(), request.getPath(), e.getCause());
        return Problems.response(503, "database_unavailable", "the database could not complete the request", null);
    }
}
