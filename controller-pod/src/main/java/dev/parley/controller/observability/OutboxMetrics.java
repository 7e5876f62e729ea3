package dev.parley.controller.observability;

import dev.parley.controller.db.Db;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;
import jakarta.inject.Singleton;

import java.sql.ResultSet;
import java.sql.Statement;

/** {@code parley_outbox_oldest_unpublished_age_seconds} read from PostgreSQL when scraped. */
@Context
@Singleton
public class OutboxMetrics {
    public OutboxMetrics(MeterRegistry meters, Db db) {
        Gauge.builder("parley_outbox_oldest_unpublished_age", db, OutboxMetrics::oldestAge)
                .description("age in seconds of the oldest outbox event not yet published")
                .baseUnit("seconds").register(meters);
    }

    static double oldestAge(Db db) {
        try {
            return db.read(c -> {
                try (Statement s = c.createStatement();
                     ResultSet rs = s.executeQuery("SELECT COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0) "
                             + "FROM outbox_events WHERE published_at IS NULL AND dead_lettered_at IS NULL")) {
                    return rs.next() ? rs.getDouble(1) : 0.0;
                }
            });
        } catch (RuntimeException e) {
            return Double.NaN; // database unavailable: the health endpoint says so
        }
    }
}
