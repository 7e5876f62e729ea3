package dev.parley.controller.hand;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.JsonBody;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The raise-hand queue of a meeting (docs/api.md "Raise hand"): one hand per participant, kept on its row
 * ({@code hand_raised_at}), ordered by the time it was raised, then participant id. Callers hold the meeting row lock
 * (commands) or read one snapshot, so raises are stamped in commit order and a raise of a raised hand changes nothing.
 * A hand is no permission: raising or lowering it does not change the participant's version.
 */
public final class HandQueue {
    /** Fixed width (microseconds, UTC): the SDK orders hands by comparing these strings. */
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSX")
            .withZone(ZoneOffset.UTC);

    private HandQueue() {
    }

    /** A raise time as the API shows it, e.g. {@code 2026-12-07T10:00:01.120000Z}. */
    public static String time(Timestamp t) {
        return TIME.format(t.toInstant());
    }

    /** One raised hand. */
    public record RaisedHand(UUID participantId, String displayName, Timestamp raisedAt) {
        public ObjectNode json() {
            ObjectNode o = JsonBody.obj();
            o.put("participant_id", participantId.toString());
            o.put("display_name", displayName);
            o.put("raised_at", time(raisedAt));
            return o;
        }
    }

    /**
     * Raises the participant's hand unless it is raised already; the hand as it is now. {@code clock_timestamp()},
     * not {@code now()}: the command waited for the meeting lock, so the time it got it is its place in the queue.
     */
    public static Raise raise(Connection c, UUID meetingId, UUID participantId, long epoch) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE meeting_participants AS p SET hand_raised_at = clock_timestamp() "
                + "WHERE p.meeting_id = ? AND p.participant_id = ? AND p.hand_raised_at IS NULL "
                + "AND EXISTS (SELECT 1 FROM meetings m WHERE m.meeting_id = p.meeting_id AND m.controller_epoch = ?) "
                + "RETURNING p.display_name, p.hand_raised_at")) {
            ps.setObject(1, meetingId);
            ps.setObject(2, participantId);
            ps.setLong(3, epoch);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return new Raise(new RaisedHand(participantId, rs.getString(1), rs.getTimestamp(2)), true);
                }
            }
        }
        RaisedHand now = of(c, meetingId, participantId);
        return new Raise(now, false);
    }

    /** The outcome of a raise: the hand, and whether this call raised it (false: it was raised already). */
    public record Raise(RaisedHand hand, boolean raised) {
    }

    /** Lowers the participant's hand; true when it was raised. */
    public static boolean lower(Connection c, UUID meetingId, UUID participantId, long epoch) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE meeting_participants AS p SET hand_raised_at = NULL "
                + "WHERE p.meeting_id = ? AND p.participant_id = ? AND p.hand_raised_at IS NOT NULL "
                + "AND EXISTS (SELECT 1 FROM meetings m WHERE m.meeting_id = p.meeting_id AND m.controller_epoch = ?)")) {
            ps.setObject(1, meetingId);
            ps.setObject(2, participantId);
            ps.setLong(3, epoch);
            return ps.executeUpdate() != 0;
        }
    }

    /** The participant's raised hand, or null. */
    public static RaisedHand of(Connection c, UUID meetingId, UUID participantId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT display_name, hand_raised_at FROM meeting_participants "
                + "WHERE meeting_id = ? AND participant_id = ? AND hand_raised_at IS NOT NULL")) {
            ps.setObject(1, meetingId);
            ps.setObject(2, participantId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new RaisedHand(participantId, rs.getString(1), rs.getTimestamp(2)) : null;
            }
        }
    }

    /** The queue: admitted participants' raised hands, first raised first (ties by participant id). */
    public static List<RaisedHand> queue(Connection c, UUID meetingId) throws SQLException {
        List<RaisedHand> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT participant_id, display_name, hand_raised_at "
                + "FROM meeting_participants WHERE meeting_id = ? AND hand_raised_at IS NOT NULL "
                + "AND admission_state = 'admitted' ORDER BY hand_raised_at, participant_id")) {
            ps.setObject(1, meetingId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new RaisedHand(rs.getObject(1, UUID.class), rs.getString(2), rs.getTimestamp(3)));
                }
            }
        }
        return out;
    }

    /** The queue as the snapshot shows it. */
    public static ArrayNode json(List<RaisedHand> queue) {
        ArrayNode a = JsonBody.JSON.createArrayNode();
        for (RaisedHand h : queue) {
            a.add(h.json());
        }
        return a;
    }
}
