package dev.parley.controller.db;

import dev.parley.controller.api.Problems;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A database we cannot reach or that fails is a 503 (retryable), never a half-written state. */
@Produces
@Singleton
public class DbExceptionHandler implements ExceptionHandler<Db.DbException, HttpResponse<?>> {
    private static final Logger LOG = LoggerFactory.getLogger(DbExceptionHandler.class);

    @Override
    @SuppressWarnings("rawtypes") // the framework interface declares a raw HttpRequest
    public HttpResponse<?> handle(HttpRequest request, Db.DbException e) {
        LOG.error("database failure on {} {}", request.getMethod(), request.getPath(), e.getCause());
        return Problems.response(503, "database_unavailable", "the database could not complete the request", null);
    }
}
