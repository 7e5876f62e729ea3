package dev.parley.controller.meeting;

import dev.parley.controller.http.ApiException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/** A meetings row. */
public record MeetingRow(UUID meetingId, UUID tenantId, UUID organizerId, String title, String status,
                         String encryptionMode, boolean waitingRoomEnabled, long controllerEpoch, long version,
                         boolean locked, boolean muteAll, boolean allowSelfUnmute, int maxParticipants,
                         int activeParticipants, String sfuPod, long controlSeq) {

    public boolean isClosing() {
        return "ending".equals(status) || "ended".equals(status);
    }

    private static final String SELECT = "SELECT meeting_id, tenant_id, organizer_id, title, status, encryption_mode, "
            + "waiting_room_enabled, controller_epoch, version, locked, mute_all, allow_self_unmute, max_participants, "
            + "active_participants, sfu_pod, control_seq FROM meetings WHERE meeting_id = ?";
    /** The row of one meeting (one parameter: the meeting id), locked. */
    public static final String SELECT_FOR_UPDATE = SELECT + " FOR UPDATE";

    public static MeetingRow load(Connection c, UUID meetingId, boolean forUpdate) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(forUpdate ? SELECT_FOR_UPDATE : SELECT)) {
            ps.setObject(1, meetingId);
            try (ResultSet rs = ps.executeQuery()) {
                return read(rs);
            }
        }
    }

    /** The meeting of a {@link #SELECT_FOR_UPDATE} result; 404 when there is none. */
    public static MeetingRow read(ResultSet rs) throws SQLException {
        if (!rs.next()) {
            throw ApiException.notFound("meeting_not_found", "no such meeting");
        }
        return new MeetingRow(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class),
                rs.getObject(3, UUID.class), rs.getString(4), rs.getString(5), rs.getString(6),
                rs.getBoolean(7), rs.getLong(8), rs.getLong(9), rs.getBoolean(10), rs.getBoolean(11),
                rs.getBoolean(12), rs.getInt(13), rs.getInt(14), rs.getString(15), rs.getLong(16));
    }
}
