package dev.parley.controller.command.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/** The commands' writes to {@code recording_jobs} (one active job per meeting, by a unique index). */
public final class RecordingJobWrites {
    private static final String ACTIVE = "state IN ('requested','starting','recording')";

    private RecordingJobWrites() {
    }

    /** A new requested job; false when one is already active (nothing written). */
    public static boolean request(Connection c, UUID jobId, UUID meetingId, UUID requestedBy) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO recording_jobs (job_id, meeting_id, requested_by, state) "
                + "VALUES (?, ?, ?, 'requested') ON CONFLICT DO NOTHING")) {
            ps.setObject(1, jobId);
            ps.setObject(2, meetingId);
            ps.setObject(3, requestedBy);
            return ps.executeUpdate() != 0;
        }
    }

    /** Asks the active job to stop; its id, or null when none is active. */
    public static UUID requestStop(Connection c, UUID meetingId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE recording_jobs SET stop_requested = true, updated_at = now() "
                + "WHERE meeting_id = ? AND " + ACTIVE + " RETURNING job_id")) {
            ps.setObject(1, meetingId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getObject(1, UUID.class) : null;
            }
        }
    }

    /** Asks every active job of the meeting to stop (the meeting ends). */
    public static void requestStopAll(Connection c, UUID meetingId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE recording_jobs SET stop_requested = true, updated_at = now() "
                + "WHERE meeting_id = ? AND " + ACTIVE)) {
            ps.setObject(1, meetingId);
            ps.executeUpdate();
        }
    }
}
