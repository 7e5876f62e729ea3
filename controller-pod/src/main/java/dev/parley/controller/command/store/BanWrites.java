package dev.parley.controller.command.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;

/** The commands' writes to {@code principal_bans}. */
public final class BanWrites {
    private BanWrites() {
    }

    /** Bans the principal from rejoining the meeting (idempotent). */
    public static void ban(Connection c, UUID meetingId, UUID principalId, UUID participantId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO principal_bans (meeting_id, principal_id, "
                + "banned_participant_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")) {
            ps.setObject(1, meetingId);
            ps.setObject(2, principalId);
            ps.setObject(3, participantId);
            ps.executeUpdate();
        }
    }
}
