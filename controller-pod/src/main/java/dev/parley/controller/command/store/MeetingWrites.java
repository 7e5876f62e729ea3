package dev.parley.controller.command.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/** The commands' writes to {@code meetings}: each one fenced on {@code controller_epoch}. */
public final class MeetingWrites {
    private MeetingWrites() {
    }

    /** mute_all; false when the epoch is no longer ours (nothing written). */
    public static boolean muteAll(Connection c, UUID meetingId, long epoch, boolean allowSelfUnmute) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE meetings SET mute_all = true, allow_self_unmute = ?, "
                + "version = version + 1, updated_at = now() WHERE meeting_id = ? AND controller_epoch = ?")) {
            ps.setBoolean(1, allowSelfUnmute);
            ps.setObject(2, meetingId);
            ps.setLong(3, epoch);
            return ps.executeUpdate() != 0;
        }
    }

    public static void lock(Connection c, UUID meetingId, long epoch, boolean locked) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE meetings SET locked = ?, version = version + 1, "
                + "updated_at = now() WHERE meeting_id = ? AND controller_epoch = ?")) {
            ps.setBoolean(1, locked);
            ps.setObject(2, meetingId);
            ps.setLong(3, epoch);
            ps.executeUpdate();
        }
    }

    /** scheduled → live (the first admit). */
    public static void goLive(Connection c, UUID meetingId, long epoch) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE meetings SET status = 'live', version = version + 1 "
                + "WHERE meeting_id = ? AND status = 'scheduled' AND controller_epoch = ?")) {
            ps.setObject(1, meetingId);
            ps.setLong(2, epoch);
            ps.executeUpdate();
        }
    }

    public static void markEnding(Connection c, UUID meetingId, long epoch) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE meetings SET status = 'ending', version = version + 1, "
                + "updated_at = now() WHERE meeting_id = ? AND controller_epoch = ?")) {
            ps.setObject(1, meetingId);
            ps.setLong(2, epoch);
            ps.executeUpdate();
        }
    }

    /** ending → ended; the meeting's new version, or -1 when it was not ending (or the epoch is not ours). */
    public static long markEnded(Connection c, UUID meetingId, long epoch) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE meetings SET status = 'ended', ended_at = now(), "
                + "version = version + 1, updated_at = now() WHERE meeting_id = ? AND status = 'ending' "
                + "AND controller_epoch = ? RETURNING version")) {
            ps.setObject(1, meetingId);
            ps.setLong(2, epoch);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        }
    }
}
