package dev.parley.controller.participant;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;

/**
 * Capacity limits, enforced atomically with conditional increments (seed 002's read-compare-set race:
 * reading a count and then inserting lets simultaneous joins overshoot). Lock order is always
 * meeting row, then tenant row. Seats are taken by the database function {@code join_meeting} (migration V5);
 * this class gives them back.
 */
public final class Seats {
    private Seats() {
    }

    /** Gives back the seats of participants that stopped being active. */
    public static void release(Connection c, UUID meetingId, UUID tenantId, int count) throws SQLException {
        if (count <= 0) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE meetings SET active_participants = "
                + "GREATEST(0, active_participants - ?) WHERE meeting_id = ?")) {
            ps.setInt(1, count);
            ps.setObject(2, meetingId);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE tenant_usage SET active_participants = "
                + "GREATEST(0, active_participants - ?) WHERE tenant_id = ?")) {
            ps.setInt(1, count);
            ps.setObject(2, tenantId);
            ps.executeUpdate();
        }
    }
}
