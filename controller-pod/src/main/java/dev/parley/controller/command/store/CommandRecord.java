package dev.parley.controller.command.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import io.micronaut.data.annotation.sql.ColumnTransformer;

import java.time.Instant;
import java.util.UUID;

/**
 * A row of {@code commands}: the stored answer behind idempotent replays and {@code GET …/commands/{id}},
 * and the command's enforcement state. {@code response} is jsonb, carried as its JSON text.
 */
@MappedEntity("commands")
public record CommandRecord(@Id UUID commandId, UUID meetingId, UUID principalId, String idempotencyKey,
                            String requestHash, String commandType, @Nullable UUID participantId, String state,
                            String mediaEnforcement, @ColumnTransformer(write = "?::jsonb") String response,
                            long controllerEpoch, @Nullable Instant createdAt, @Nullable Instant appliedAt) {
}
