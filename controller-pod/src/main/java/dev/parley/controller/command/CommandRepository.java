package dev.parley.controller.command;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;

import java.util.Optional;
import java.util.UUID;

/**
 * Micronaut Data access to {@code commands}. Runs on the connection of the surrounding {@code Db}
 * transaction (Db opens it through Micronaut's transaction manager), so it commits or rolls back with the
 * command's other writes.
 */
@JdbcRepository(dialect = Dialect.POSTGRES)
public interface CommandRepository extends GenericRepository<CommandRecord, UUID> {

    Optional<CommandRecord> findByMeetingIdAndCommandId(UUID meetingId, UUID commandId);

    /** Inserts a new command (created_at comes from the column default). */
    @Query("INSERT INTO commands (command_id, meeting_id, principal_id, idempotency_key, request_hash, command_type, "
            + "participant_id, state, media_enforcement, response, controller_epoch) VALUES (:commandId, :meetingId, "
            + ":principalId, :idempotencyKey, :requestHash, :commandType, :participantId, 'committed', "
            + ":mediaEnforcement, CAST(:response AS jsonb), :controllerEpoch)")
    void insertCommitted(UUID commandId, UUID meetingId, UUID principalId, String idempotencyKey, String requestHash,
                         String commandType, @io.micronaut.core.annotation.Nullable UUID participantId,
                         String mediaEnforcement, String response, long controllerEpoch);

    /**
     * {@code pending → applied}, only while {@code epoch} still owns the meeting. Zero rows means nothing
     * changed (already applied, or we are no longer the owner) and is never reported as applied.
     */
    @Query("UPDATE commands SET state = 'applied', media_enforcement = 'applied', applied_at = now() "
            + "WHERE command_id = :commandId AND media_enforcement = 'pending' AND EXISTS (SELECT 1 FROM meetings m "
            + "WHERE m.meeting_id = commands.meeting_id AND m.controller_epoch = :epoch)")
    long markApplied(UUID commandId, long epoch);
}
