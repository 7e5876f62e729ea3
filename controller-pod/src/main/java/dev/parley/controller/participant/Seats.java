package dev.parley.controller.participant;

import dev.parley.controller.api.ApiException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;

/**
 * Capacity limits, enforced atomically with conditional increments (seed 002's read-compare-set race:
 * reading a count and then inserting lets simultaneous joins overshoot). Lock order is always
 * meeting row, then tenant row.
 */
public final class Seats {
    private Seats() {
    }

    /**
     * Taking one meeting seat and one tenant seat: two statements (parameters: meeting id; tenant id, tenant
     * limit); check both row counts with {@link #requireTaken}. The tenant's first seat creates its usage row;
     * later ones increment it only below the limit.
     */
    static final String[] TAKE = {
            "UPDATE meetings SET active_participants = active_participants + 1 "
                    + "WHERE meeting_id = ? AND active_participants < max_participants",
            "INSERT INTO tenant_usage AS u (tenant_id, max_concurrent_participants, active_participants) "
                    + "VALUES (?, ?, 1) ON CONFLICT (tenant_id) DO UPDATE SET active_participants = u.active_participants + 1 "
                    + "WHERE u.active_participants < u.max_concurrent_participants"};

    /** Binds {@link #TAKE}'s parameters from {@code first}; returns the next index. */
    static int bindTake(PreparedStatement ps, int first, UUID meetingId, UUID tenantId, int tenantMax) throws SQLException {
        ps.setObject(first, meetingId);
        ps.setObject(first + 1, tenantId);
        ps.setInt(first + 2, tenantMax);
        return first + 3;
    }

    /** Throws (the transaction then writes nothing) unless both conditional increments matched. */
    static void requireTaken(int meetingRows, int tenantRows) {
        if (meetingRows == 0) {
            throw ApiException.conflict("meeting_full", "the meeting has reached its maximum participants");
        }
        if (tenantRows == 0) {
            throw new ApiException(429, "tenant_capacity_reached", "the tenant has reached its concurrent participant limit");
        }
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
