package dev.parley.controller.outbox;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;

import java.util.Collection;
import java.util.UUID;

/**
 * The relay's bookkeeping on {@code outbox_events} (Micronaut Data JDBC). Every update is conditional on
 * the event still being undelivered and not dead-lettered: zero rows means another relay (or an operator's
 * redrive) already settled it, and the caller must not count it as its own outcome.
 */
@JdbcRepository(dialect = Dialect.POSTGRES)
public interface OutboxRepository extends GenericRepository<OutboxEventRecord, UUID> {

    @Query("UPDATE outbox_events SET published_at = now(), last_error = NULL "
            + "WHERE event_id = :eventId AND published_at IS NULL AND dead_lettered_at IS NULL")
    long markPublished(UUID eventId);

    /** {@link #markPublished} for a whole round's deliveries in one statement; returns how many it settled. */
    @Query("UPDATE outbox_events SET published_at = now(), last_error = NULL "
            + "WHERE event_id IN (:eventIds) AND published_at IS NULL AND dead_lettered_at IS NULL")
    long markAllPublished(Collection<UUID> eventIds);

    @Query("UPDATE outbox_events SET attempts = attempts + 1, dead_lettered_at = now(), last_error = :error "
            + "WHERE event_id = :eventId AND published_at IS NULL AND dead_lettered_at IS NULL")
    long markDeadLettered(UUID eventId, String error);

    @Query("UPDATE outbox_events SET attempts = attempts + 1, last_error = :error, "
            + "next_attempt_at = now() + (:backoffMillis * interval '1 millisecond') "
            + "WHERE event_id = :eventId AND published_at IS NULL AND dead_lettered_at IS NULL")
    long scheduleRetry(UUID eventId, String error, long backoffMillis);
}
