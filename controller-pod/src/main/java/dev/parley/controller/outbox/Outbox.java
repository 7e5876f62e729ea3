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
    /** Adds an event; the same (meeting, type, key) is written once. */
    public void add(Connection c, UUID meetingId, long aggregateVersion, String type, String idempotencyKey,
                    ObjectNode payload) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO outbox_events (event_id, meeting_id, aggregate_version, event_type, idempotency_key, payload) "
                        + "VALUES (?, ?, ?, ?, ?, ?::jsonb) ON CONFLICT (meeting_id, event_type, idempotency_key) DO NOTHING")) {
            ps.setObject(1, UUID.randomUUID());
            ps.setObject(2, meetingId);
            ps.setLong(3, Math.max(1, aggregateVersion));
            ps.setString(4, type);
            ps.setString(5, idempotencyKey);
            ps.setString(6, payload.toString());
            ps.executeUpdate();
        }
    }
}
