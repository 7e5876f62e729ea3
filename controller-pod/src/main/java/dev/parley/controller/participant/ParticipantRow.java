package dev.parley.controller.participant;

import dev.parley.controller.http.ApiException;
import dev.parley.platform.grant.PublishRights;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** A meeting_participants row and the fenced updates on it. */
public record ParticipantRow(UUID meetingId, UUID participantId, UUID principalId, UUID clientInstanceId,
                             String idempotencyKey, String role, String admissionState, boolean audio,
                             boolean video, boolean screen, long transportGeneration, long version,
                             String displayName, String joinRequestHash, String sfuPod, boolean unmuteRequested) {

    /** One participant (parameters: meeting id, participant id), locked. */
    public static final String SELECT_ONE_FOR_UPDATE = "SELECT " + ParticipantRow.COLS + " FROM meeting_participants "
            + "WHERE meeting_id = ? AND participant_id = ? FOR UPDATE";
    /** A principal's active rows, newest first (parameters: meeting id, principal id). */
    public static final String SELECT_ACTIVE_OF = "SELECT " + ParticipantRow.COLS + " FROM meeting_participants "
            + "WHERE meeting_id = ? AND principal_id = ? AND admission_state IN ('waiting','admitted') "
            + "ORDER BY created_at DESC";

    static final String COLS = "meeting_id, participant_id, principal_id, client_instance_id, idempotency_key, role, "
            + "admission_state, audio_publish_allowed, video_publish_allowed, screen_publish_allowed, "
            + "transport_generation, version, display_name, join_request->>'_hash', sfu_pod, unmute_requested";

    public boolean isActive() {
        return "waiting".equals(admissionState) || "admitted".equals(admissionState);
    }

    public boolean isAdmitted() {
        return "admitted".equals(admissionState);
    }

    public boolean isModerator() {
        return isAdmitted() && ("host".equals(role) || "cohost".equals(role));
    }

    /** This row after a transport reservation moved it to {@code generation} on {@code pod} (version unchanged). */
    public ParticipantRow withTransport(long generation, String pod) {
        return new ParticipantRow(meetingId, participantId, principalId, clientInstanceId, idempotencyKey, role,
                admissionState, audio, video, screen, generation, version, displayName, joinRequestHash, pod,
                unmuteRequested);
    }

    public PublishRights rights() {
        return isAdmitted() ? new PublishRights(audio, video, screen) : PublishRights.NONE;
    }

    public static ParticipantRow read(ResultSet rs) throws SQLException {
        return read(rs, 0);
    }

    /** Reads {@link #COLS} starting after the first {@code skip} columns. */
    public static ParticipantRow read(ResultSet rs, int skip) throws SQLException {
        int i = skip;
        return new ParticipantRow(rs.getObject(i + 1, UUID.class), rs.getObject(i + 2, UUID.class),
                rs.getObject(i + 3, UUID.class), rs.getObject(i + 4, UUID.class), rs.getString(i + 5),
                rs.getString(i + 6), rs.getString(i + 7), rs.getBoolean(i + 8), rs.getBoolean(i + 9),
                rs.getBoolean(i + 10), rs.getLong(i + 11), rs.getLong(i + 12), rs.getString(i + 13),
                rs.getString(i + 14), rs.getString(i + 15), rs.getBoolean(i + 16));
    }

    public static ParticipantRow find(Connection c, UUID meetingId, UUID participantId, boolean forUpdate) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLS + " FROM meeting_participants "
                + "WHERE meeting_id = ? AND participant_id = ?" + (forUpdate ? " FOR UPDATE" : ""))) {
            ps.setObject(1, meetingId);
            ps.setObject(2, participantId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? read(rs) : null;
            }
        }
    }

    public static ParticipantRow require(Connection c, UUID meetingId, UUID participantId, boolean forUpdate) throws SQLException {
        ParticipantRow p = find(c, meetingId, participantId, forUpdate);
        if (p == null) {
            throw ApiException.notFound("participant_not_found", "no such participant in this meeting");
        }
        return p;
    }

    public static ParticipantRow byKey(Connection c, UUID meetingId, UUID principalId, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLS + " FROM meeting_participants "
                + "WHERE meeting_id = ? AND principal_id = ? AND idempotency_key = ?")) {
            ps.setObject(1, meetingId);
            ps.setObject(2, principalId);
            ps.setString(3, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? read(rs) : null;
            }
        }
    }

    /** The caller's active (waiting/admitted) participant rows in a meeting, newest first. */
    public static List<ParticipantRow> activeOf(Connection c, UUID meetingId, UUID principalId) throws SQLException {
        List<ParticipantRow> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(SELECT_ACTIVE_OF)) {
            ps.setObject(1, meetingId);
            ps.setObject(2, principalId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(read(rs));
                }
            }
        }
        return out;
    }

    public static List<ParticipantRow> all(Connection c, UUID meetingId, String whereExtra) throws SQLException {
        List<ParticipantRow> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLS + " FROM meeting_participants "
                + "WHERE meeting_id = ? " + whereExtra + " ORDER BY participant_id")) {
            ps.setObject(1, meetingId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(read(rs));
                }
            }
        }
        return out;
    }

    /**
     * {@code UPDATE ... WHERE version = :expected AND controller_epoch = :epoch}. Returns the new version;
     * zero rows is never success: it is a version conflict (409 with the current version) or, when the
     * epoch moved, "no longer owner".
     */
    public static long fencedUpdate(Connection c, UUID meetingId, UUID participantId, long expectedVersion, long epoch,
                                    String setClause, Object... params) throws SQLException {
        return fencedUpdateRow(c, meetingId, participantId, expectedVersion, epoch, setClause, params).version();
    }

    /** {@link #fencedUpdate} returning the updated row (saves re-reading it for events). */
    public static ParticipantRow fencedUpdateRow(Connection c, UUID meetingId, UUID participantId, long expectedVersion,
                                                 long epoch, String setClause, Object... params) throws SQLException {
        String sql = "UPDATE meeting_participants p SET " + setClause + ", version = p.version + 1, updated_at = now() "
                + "WHERE p.meeting_id = ? AND p.participant_id = ? AND p.version = ? "
                + "AND EXISTS (SELECT 1 FROM meetings m WHERE m.meeting_id = p.meeting_id AND m.controller_epoch = ?) "
                + "RETURNING " + COLS;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            for (Object o : params) {
                ps.setObject(i++, o);
            }
            ps.setObject(i++, meetingId);
            ps.setObject(i++, participantId);
            ps.setLong(i++, expectedVersion);
            ps.setLong(i, epoch);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return read(rs);
                }
            }
        }
        ParticipantRow now = find(c, meetingId, participantId, false);
        if (now == null) {
            throw ApiException.notFound("participant_not_found", "no such participant in this meeting");
        }
        long dbEpoch;
        try (PreparedStatement ps = c.prepareStatement("SELECT controller_epoch FROM meetings WHERE meeting_id = ?")) {
            ps.setObject(1, meetingId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                dbEpoch = rs.getLong(1);
            }
        }
        if (dbEpoch != epoch) {
            throw new dev.parley.controller.meeting.NotOwnerException(meetingId, epoch, dbEpoch);
        }
        throw ApiException.conflict("version_conflict", "participant version is " + now.version())
                .with("current_version", now.version());
    }
}
