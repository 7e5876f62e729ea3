package dev.parley.controller.recording;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/**
 * Who counts as a host of a recorded meeting, for downloads and for the object keys in the meeting's recording
 * list. Roles are per participant and the host role does not outlive the meeting (leaving or the end demotes the
 * host to attendee), while downloads usually come after the end. So a host is: the meeting's organizer, the principal who started the recording (a host or cohost at
 * that moment), or a principal who is host or cohost of the meeting now (not removed).
 */
final class RecordingHosts {
    private RecordingHosts() {
    }

    /**
     * The rule as one SQL expression over {@code recording_jobs j JOIN meetings m}: true when the principal bound
     * with {@link #bind} at the expression's first parameter is a host of job {@code j}.
     */
    static final String IS_HOST = "(m.organizer_id = ? OR j.requested_by = ? OR EXISTS ("
            + "SELECT 1 FROM meeting_participants p WHERE p.meeting_id = m.meeting_id AND p.principal_id = ? "
            + "AND p.role IN ('host', 'cohost') AND p.admission_state <> 'removed'))";

    /** Binds {@link #IS_HOST}'s parameters from {@code first}; returns the next parameter index. */
    static int bind(PreparedStatement ps, int first, UUID principal) throws SQLException {
        for (int i = 0; i < 3; i++) {
            ps.setObject(first + i, principal);
        }
        return first + 3;
    }

    static boolean isHost(Connection c, UUID jobId, UUID meetingId, UUID principal) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + IS_HOST + " "
                + "FROM recording_jobs j JOIN meetings m ON m.meeting_id = j.meeting_id "
                + "WHERE j.job_id = ? AND m.meeting_id = ?")) {
            int i = bind(ps, 1, principal);
            ps.setObject(i, jobId);
            ps.setObject(i + 1, meetingId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }
}
