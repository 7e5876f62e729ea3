package dev.parley.controller.outbox;

import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.inject.Singleton;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;

/** Writes outbox rows inside the business transaction (transactional outbox, seed 000). */
@Singleton
public class Outbox {
    /** An outbox row to write; the same (meeting, type, key) is written once. */
    public record Event(long aggregateVersion, String type, String idempotencyKey, ObjectNode payload) {
    }

    /** {@code INSERT INTO outbox_events (...)} head; the caller supplies VALUES or a SELECT of 6 parameters. */
    public static final String INSERT = "INSERT INTO outbox_events (event_id, meeting_id, aggregate_version, event_type, "
            + "idempotency_key, payload) ";
    static final String SIX_PARAMS = "?, ?, ?, ?, ?, ?::jsonb";
    public static final String ONCE = " ON CONFLICT (meeting_id, event_type, idempotency_key) DO NOTHING";

    /** Adds an event; the same (meeting, type, key) is written once. */
    public void add(Connection c, UUID meetingId, long aggregateVersion, String type, String idempotencyKey,
                    ObjectNode payload) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(INSERT + "VALUES (" + SIX_PARAMS + ")" + ONCE)) {
            bind(ps, 1, meetingId, new Event(aggregateVersion, type, idempotencyKey, payload));
            ps.executeUpdate();
        }
    }

    /**
     * SQL of a CTE member that inserts {@code e} once for each row of {@code from} (so it is written only if
     * the statement's fenced part matched); bind its parameters with {@link #bind}.
     */
    public static String insertFrom(String from) {
        return INSERT + "SELECT " + SIX_PARAMS + " FROM " + from + ONCE;
    }

    /** Binds the six parameters of an outbox row from {@code first}; returns the next parameter index. */
    public static int bind(PreparedStatement ps, int first, UUID meetingId, Event e) throws SQLException {
        ps.setObject(first, UUID.randomUUID());
        ps.setObject(first + 1, meetingId);
        ps.setLong(first + 2, Math.max(1, e.aggregateVersion()));
        ps.setString(first + 3, e.type());
        ps.setString(first + 4, e.idempotencyKey());
        ps.setString(first + 5, e.payload().toString());
        return first + 6;
    }
}
