package dev.parley.controller.meeting;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/**
 * A meeting's large-meeting policy (docs/api.md "Large meetings"): above {@code largeMeetingSize} participants
 * attendees join muted with camera off (null = never), and under {@code hosts_and_presenters} attendees may publish
 * audio or video only once a moderator allowed them to speak. Parsing, bounds and the meeting row's columns.
 */
public record LargeMeetingPolicy(Integer largeMeetingSize, String unmutePolicy) {
    /** Participants above which attendees join muted: a meeting this big is a talk, not a conversation. */
    public static final int SIZE_DEFAULT = 50;
    public static final int SIZE_MAX = 10_000;
    public static final String EVERYONE = "everyone";
    public static final String HOSTS_AND_PRESENTERS = "hosts_and_presenters";
    public static final LargeMeetingPolicy DEFAULT = new LargeMeetingPolicy(SIZE_DEFAULT, EVERYONE);

    /** Under this policy, may a participant of {@code role} who was (not) allowed to speak publish audio/video? */
    public boolean mayPublish(String role, boolean speakAllowed) {
        return !"attendee".equals(role) || speakAllowed || EVERYONE.equals(unmutePolicy);
    }

    public boolean restrictsAttendees() {
        return HOSTS_AND_PRESENTERS.equals(unmutePolicy);
    }

    /** The policy of a creation body: absent fields take the defaults, {@code large_meeting_size: null} is off. */
    public static LargeMeetingPolicy fromCreation(ObjectNode body) {
        Integer size = body.has("large_meeting_size") ? size(body) : Integer.valueOf(SIZE_DEFAULT);
        String unmute = unmutePolicy(body);
        return new LargeMeetingPolicy(size, unmute == null ? EVERYONE : unmute);
    }

    /** The change a command asks for, applied to {@code current}; 400 when it names neither field. */
    public static LargeMeetingPolicy change(ObjectNode body, LargeMeetingPolicy current) {
        if (!body.has("large_meeting_size") && !body.has("unmute_policy")) {
            throw ApiException.badRequest("missing_field", "name large_meeting_size or unmute_policy")
                    .with("field", "unmute_policy");
        }
        Integer size = body.has("large_meeting_size") ? size(body) : current.largeMeetingSize();
        if (body.has("unmute_policy") && body.get("unmute_policy").isNull()) {
            throw invalidPolicy();
        }
        String unmute = unmutePolicy(body);
        return new LargeMeetingPolicy(size, unmute == null ? current.unmutePolicy() : unmute);
    }

    /** {@code large_meeting_size}: an integer within 1..10000, or null (off). */
    private static Integer size(ObjectNode body) {
        JsonNode n = body.get("large_meeting_size");
        if (n.isNull()) {
            return null;
        }
        if (!n.isIntegralNumber() || !n.canConvertToInt() || n.asInt() < 1 || n.asInt() > SIZE_MAX) {
            throw ApiException.badRequest("invalid_field", "field 'large_meeting_size' must be an integer within 1.."
                    + SIZE_MAX + " or null (off)").with("field", "large_meeting_size");
        }
        return n.asInt();
    }

    private static String unmutePolicy(ObjectNode body) {
        JsonNode n = body.get("unmute_policy");
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isTextual() || !(EVERYONE.equals(n.asText()) || HOSTS_AND_PRESENTERS.equals(n.asText()))) {
            throw invalidPolicy();
        }
        return n.asText();
    }

    private static ApiException invalidPolicy() {
        return ApiException.badRequest("invalid_field", "field 'unmute_policy' must be one of everyone, "
                + "hosts_and_presenters").with("field", "unmute_policy");
    }

    /** The meeting's policy within {@code c} (the default for an unknown meeting). */
    public static LargeMeetingPolicy of(Connection c, UUID meetingId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT large_meeting_size, unmute_policy FROM meetings WHERE meeting_id = ?")) {
            ps.setObject(1, meetingId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return DEFAULT;
                }
                int size = rs.getInt(1);
                return new LargeMeetingPolicy(rs.wasNull() ? null : size, rs.getString(2));
            }
        }
    }

    /** Writes the policy (fenced on the epoch; the meeting row is already locked by the command). */
    public void store(Connection c, UUID meetingId, long epoch) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE meetings SET large_meeting_size = ?, unmute_policy = ?, "
                + "version = version + 1, updated_at = now() WHERE meeting_id = ? AND controller_epoch = ?")) {
            if (largeMeetingSize == null) {
                ps.setNull(1, java.sql.Types.INTEGER);
            } else {
                ps.setInt(1, largeMeetingSize);
            }
            ps.setString(2, unmutePolicy);
            ps.setObject(3, meetingId);
            ps.setLong(4, epoch);
            if (ps.executeUpdate() == 0) {
                throw ApiException.unavailable("owner_changed", "controller epoch superseded; retry");
            }
        }
    }

    /** The two fields as the API shows them. */
    public void writeTo(ObjectNode out) {
        if (largeMeetingSize == null) {
            out.putNull("large_meeting_size");
        } else {
            out.put("large_meeting_size", largeMeetingSize);
        }
        out.put("unmute_policy", unmutePolicy);
    }
}
