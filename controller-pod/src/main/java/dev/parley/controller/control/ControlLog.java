package dev.parley.controller.control;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.api.ApiException;
import dev.parley.controller.db.Pipeline;
import dev.parley.controller.outbox.Outbox;
import jakarta.inject.Singleton;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The per-meeting control event log. Appends happen inside the command's transaction (so events and
 * state commit together) and are fenced by the epoch: the sequence lives in {@code meetings.control_seq}
 * and is only advanced where {@code controller_epoch} is ours.
 */
@Singleton
public class ControlLog {
    /** How many events per meeting and epoch are kept for resume; older cursors get snapshot_required. */
    public static final int RETENTION = 1000;
    private static final ObjectMapper JSON = new ObjectMapper();

    public ControlEvent append(Connection c, UUID meetingId, long epoch, String type, ObjectNode payload,
                               UUID audience) throws SQLException {
        return append(c, meetingId, epoch, type, payload, audience, null);
    }

    /**
     * Appends an event and, in the same statement (one round trip), writes {@code outbox} when it is not
     * null: both happen only if the epoch-fenced sequence update matched.
     */
    public ControlEvent append(Connection c, UUID meetingId, long epoch, String type, ObjectNode payload,
                               UUID audience, Outbox.Event outbox) throws SQLException {
        return appendAll(c, meetingId, epoch, List.of(new Entry(type, payload, audience, outbox))).get(0);
    }

    /** An event to append (with its outbox row, or null). */
    public record Entry(String type, ObjectNode payload, UUID audience, Outbox.Event outbox) {
    }

    /**
     * Appends events in order, each in its own epoch-fenced statement, all sent in ONE round trip
     * ({@link Pipeline}); the sequence is advanced once per event, in the order given.
     */
    public List<ControlEvent> appendAll(Connection c, UUID meetingId, long epoch, List<Entry> entries) throws SQLException {
        if (entries.isEmpty()) {
            return List.of();
        }
        String[] sql = new String[entries.size()];
        for (int n = 0; n < sql.length; n++) {
            sql[n] = appendSql(entries.get(n).outbox() != null);
        }
        List<UUID> ids = new ArrayList<>();
        List<ControlEvent> out = new ArrayList<>();
        try (Pipeline q = Pipeline.prepare(c, sql)) {
            PreparedStatement ps = q.params();
            int i = 1;
            for (Entry e : entries) {
                UUID id = UUID.randomUUID();
                ids.add(id);
                ps.setObject(i, meetingId);
                ps.setLong(i + 1, epoch);
                i = e.outbox() == null ? i + 2 : Outbox.bind(ps, i + 2, meetingId, e.outbox());
                ps.setObject(i, meetingId);
                ps.setLong(i + 1, epoch);
                ps.setObject(i + 2, id);
                ps.setString(i + 3, e.type());
                ps.setString(i + 4, e.payload().toString());
                ps.setObject(i + 5, e.audience());
                i += 6;
            }
            q.execute();
            for (int n = 0; n < sql.length; n++) {
                Entry e = entries.get(n);
                try (ResultSet rs = q.next()) {
                    if (!rs.next()) {
                        throw ApiException.unavailable("owner_changed", "controller epoch superseded; retry");
                    }
                    out.add(new ControlEvent(meetingId, epoch, rs.getLong(1), ids.get(n), e.type(), e.payload(), e.audience()));
                }
            }
        }
        for (ControlEvent e : out) {
            if (e.seq() % 200 == 0) {
                try (PreparedStatement ps = c.prepareStatement(
                        "DELETE FROM control_events WHERE meeting_id = ? AND (controller_epoch < ? OR seq <= ?)")) {
                    ps.setObject(1, meetingId);
                    ps.setLong(2, epoch);
                    ps.setLong(3, e.seq() - RETENTION);
                    ps.executeUpdate();
                }
            }
        }
        return out;
    }

    private static String appendSql(boolean withOutbox) {
        return "WITH s AS (UPDATE meetings SET control_seq = control_seq + 1 WHERE meeting_id = ? "
                + "AND controller_epoch = ? RETURNING control_seq) "
                + (withOutbox ? ", o AS (" + Outbox.insertFrom("s") + ") " : "")
                + "INSERT INTO control_events (meeting_id, controller_epoch, seq, event_id, event_type, payload, "
                + "audience_participant_id) SELECT ?, ?, s.control_seq, ?, ?, ?::jsonb, ? FROM s RETURNING seq";
    }

    /**
     * Events after {@code after} for a viewer, or null when they can't be replayed exactly (other epoch,
     * or the next event fell out of retention).
     */
    public List<ControlEvent> after(Connection c, UUID meetingId, Cursor after, long currentEpoch, long currentSeq,
                                    UUID viewer) throws SQLException {
        if (after.epoch() != currentEpoch || after.seq() > currentSeq) {
            return null;
        }
        List<ControlEvent> out = new ArrayList<>();
        long expected = after.seq() + 1;
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT seq, event_id, event_type, payload::text, audience_participant_id FROM control_events "
                        + "WHERE meeting_id = ? AND controller_epoch = ? AND seq > ? ORDER BY seq")) {
            ps.setObject(1, meetingId);
            ps.setLong(2, currentEpoch);
            ps.setLong(3, after.seq());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long seq = rs.getLong(1);
                    if (seq != expected) {
                        return null; // a gap: retention passed
                    }
                    expected++;
                    UUID aud = rs.getObject(5, UUID.class);
                    if (aud != null && !aud.equals(viewer)) {
                        continue;
                    }
                    out.add(new ControlEvent(meetingId, currentEpoch, seq, rs.getObject(2, UUID.class), rs.getString(3),
                            (ObjectNode) JSON.readTree(rs.getString(4)), aud));
                }
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new SQLException("unreadable control event", e);
            }
        }
        if (expected - 1 != currentSeq) {
            return null;
        }
        return out;
    }
}
