package dev.parley.controller.outbox;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.GeneratedValue;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;
import java.util.UUID;

/**
 * A row of {@code outbox_events} as the relay's repository sees it. Rows are written by the business
 * transactions (fused into the control-log statement, see {@code ControlLog}); the relay only reads and
 * marks them. {@code payload} is jsonb, carried as its JSON text.
 */
@MappedEntity("outbox_events")
public record OutboxEventRecord(@Id UUID eventId, UUID meetingId, long aggregateVersion, String eventType,
                                String idempotencyKey, String payload, @Nullable Instant createdAt,
                                @Nullable Instant publishedAt, @GeneratedValue @Nullable Long position, int attempts,
                                @Nullable Instant nextAttemptAt, @Nullable String lastError,
                                @Nullable Instant deadLetteredAt) {
}
