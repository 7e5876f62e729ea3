package dev.parley.controller.command.store;

import dev.parley.controller.control.ControlLog;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/**
 * The command path's SQL on {@code commands} (reads by id and {@code markApplied} are {@link CommandRepository}'s):
 * the stored command of an Idempotency-Key, read in the command's first round trip, and the record written as
 * the rider of the command's event append.
 */
public final class CommandStore {
    /** This key's stored command (parameters: meeting id, principal id, key). */
    public static final String STORED = "SELECT command_id, request_hash, command_type, response::text FROM commands "
            + "WHERE meeting_id = ? AND principal_id = ? AND idempotency_key = ?";

    private CommandStore() {
    }

    /** The row {@link #STORED} found (only the columns a replay needs), or null. */
    public static CommandRecord readStored(ResultSet rs, UUID meetingId, UUID principalId, String key, long epoch)
            throws SQLException {
        return rs.next() ? new CommandRecord(rs.getObject(1, UUID.class), meetingId, principalId, key, rs.getString(2),
                rs.getString(3), null, null, null, rs.getString(4), epoch, null, null) : null;
    }

    /** The command record (for GET commands/{id} and Idempotency-Key replays), written after its events. */
    public record Insert(UUID commandId, UUID meetingId, UUID principalId, String key, String hash, String type,
                         UUID target, String mediaEnforcement, String response, long epoch)
            implements ControlLog.Rider {
        @Override
        public String sql() {
            return "INSERT INTO commands (command_id, meeting_id, principal_id, idempotency_key, request_hash, command_type, "
                    + "participant_id, state, media_enforcement, response, controller_epoch) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, 'committed', ?, ?::jsonb, ?)";
        }

        @Override
        public void bind(PreparedStatement ps, int i) throws SQLException {
            ps.setObject(i, commandId);
            ps.setObject(i + 1, meetingId);
            ps.setObject(i + 2, principalId);
            ps.setString(i + 3, key);
            ps.setString(i + 4, hash);
            ps.setString(i + 5, type);
            ps.setObject(i + 6, target);
            ps.setString(i + 7, mediaEnforcement);
            ps.setString(i + 8, response);
            ps.setLong(i + 9, epoch);
        }
    }
}
