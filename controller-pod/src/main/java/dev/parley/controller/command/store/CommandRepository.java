package dev.parley.controller.command.store;

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

    /**
     * {@code pending → applied}, only while {@code epoch} still owns the meeting. Zero rows means nothing
     * changed (already applied, or we are no longer the owner) and is never reported as applied.
     */
    @Query("UPDATE commands SET state = 'applied', media_enforcement = 'applied', applied_at = now() "
            + "WHERE command_id = :commandId AND media_enforcement = 'pending' AND EXISTS (SELECT 1 FROM meetings m "
            + "WHERE m.meeting_id = commands.meeting_id AND m.controller_epoch = :epoch)")
    long markApplied(UUID commandId, long epoch);
}
