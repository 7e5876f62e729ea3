package dev.parley.controller.roster;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.JsonBody;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A {@code roster_entries} row: what the roster page shows of a participant. Display only — nothing decides access
 * from it (see {@link RosterProjector}).
 */
public record RosterEntry(UUID participantId, String displayName, String role, String admissionState, long version,
                          boolean audio, boolean video, boolean screen) {

    /** The page's JSON, field for field as {@code ParticipantService.participantJson} (existing clients read it). */
    public ObjectNode json() {
        ObjectNode o = JsonBody.obj();
        o.put("participant_id", participantId.toString());
        o.put("display_name", displayName);
        o.put("role", role);
        o.put("admission_state", admissionState);
        o.put("participant_version", version);
        ObjectNode pub = o.putObject("publish");
        pub.put("audio", audio);
        pub.put("video", video);
        pub.put("screen", screen);
        return o;
    }

    private static final String PAGE = "SELECT participant_id, display_name, role, admission_state, participant_version, "
            + "audio_publish, video_publish, screen_publish FROM roster_entries "
            + "WHERE meeting_id = ? AND admission_state IN ('waiting','admitted') AND (?::uuid IS NULL OR participant_id > ?::uuid) "
            + "ORDER BY participant_id LIMIT ?";

    /** Up to {@code max} waiting/admitted entries of a meeting after {@code after} (null: from the start), by id. */
    public static List<RosterEntry> page(Connection c, UUID meetingId, UUID after, int max) throws SQLException {
        List<RosterEntry> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(PAGE)) {
            ps.setObject(1, meetingId);
            ps.setObject(2, after);
            ps.setObject(3, after);
            ps.setInt(4, max);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(read(rs));
                }
            }
        }
        return out;
    }

    private static final String BY_IDS = "SELECT participant_id, display_name, role, admission_state, participant_version, "
            + "audio_publish, video_publish, screen_publish FROM roster_entries "
            + "WHERE meeting_id = ? AND admission_state IN ('waiting','admitted') AND participant_id = ANY (?) "
            + "ORDER BY participant_id";

    /** The waiting/admitted entries of a meeting among {@code ids} (those that are not: left out), by id. */
    public static List<RosterEntry> byIds(Connection c, UUID meetingId, List<UUID> ids) throws SQLException {
        List<RosterEntry> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(BY_IDS)) {
            ps.setObject(1, meetingId);
            ps.setArray(2, c.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(read(rs));
                }
            }
        }
        return out;
    }

    private static RosterEntry read(ResultSet rs) throws SQLException {
        return new RosterEntry(rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3), rs.getString(4),
                rs.getLong(5), rs.getBoolean(6), rs.getBoolean(7), rs.getBoolean(8));
    }

    /**
     * The control cursor ({@code epoch.seq}) up to which the read model has applied this meeting's events, or null
     * when the projection has not looked at the meeting yet.
     */
    public static String projectedCursor(Connection c, UUID meetingId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT seen_epoch, seen_seq FROM roster_checkpoints WHERE meeting_id = ? AND seen_epoch IS NOT NULL")) {
            ps.setObject(1, meetingId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) + "." + rs.getLong(2) : null;
            }
        }
    }
}
