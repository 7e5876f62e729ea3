package dev.parley.controller.control;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.db.Pipeline;
import dev.parley.controller.outbox.Outbox;
import jakarta.inject.Singleton;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
    // a pooled factory: callers are virtual threads, whose per-thread buffer pools never get reused
    private static final ObjectMapper JSON = JsonMapper.builder(JsonBody.pooledFactory()).build();

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
     * A statement that travels in the same round trip right after the append (the command record): the
     * server runs it after the append, in the same transaction; {@link #bind} sets its parameters from
     * {@code first} on.
     */
    public interface Rider {
        String sql();

        void bind(PreparedStatement ps, int first) throws SQLException;
    }

    public List<ControlEvent> appendAll(Connection c, UUID meetingId, long epoch, List<Entry> entries) throws SQLException {
        return appendAll(c, meetingId, epoch, entries, null);
    }

    /**
     * Appends events in order in ONE epoch-fenced statement: {@code control_seq} is advanced once by the
     * number of events and event {@code n} (from 1) gets {@code old control_seq + n}, so a command's events
     * stay gap-free and in the order given. Their outbox rows are inserted by the same statement, in the same
     * order (their {@code position} follows the insert order). Nothing is written unless the fenced update
     * matched.
     */
    public List<ControlEvent> appendAll(Connection c, UUID meetingId, long epoch, List<Entry> entries, Rider rider)
            throws SQLException {
        if (entries.isEmpty()) {
            if (rider != null) {
                try (PreparedStatement ps = c.prepareStatement(rider.sql())) {
                    rider.bind(ps, 1);
                    ps.execute();
                }
            }
            return List.of();
        }
        int n = entries.size();
        UUID[] ids = new UUID[n];
        String[] types = new String[n];
        String[] payloads = new String[n];
        UUID[] audiences = new UUID[n];
        List<UUID> oIds = new ArrayList<>();
        List<Long> oVersions = new ArrayList<>();
        List<String> oTypes = new ArrayList<>();
        List<String> oKeys = new ArrayList<>();
        List<String> oPayloads = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            Entry e = entries.get(k);
            ids[k] = UUID.randomUUID();
            types[k] = e.type();
            payloads[k] = e.payload().toString();
            audiences[k] = e.audience();
            if (e.outbox() != null) {
                oIds.add(UUID.randomUUID());
                oVersions.add(Math.max(1, e.outbox().aggregateVersion()));
                oTypes.add(e.outbox().type());
                oKeys.add(e.outbox().idempotencyKey());
                oPayloads.add(e.outbox().payload().toString());
            }
        }
        long[] seqs = new long[n];
        try (Pipeline q = rider == null ? Pipeline.prepare(c, APPEND_ALL) : Pipeline.prepare(c, APPEND_ALL, rider.sql())) {
            PreparedStatement ps = q.params();
            ps.setLong(1, n);
            ps.setObject(2, meetingId);
            ps.setLong(3, epoch);
            ps.setObject(4, meetingId);
            ps.setArray(5, c.createArrayOf("uuid", oIds.toArray()));
            ps.setArray(6, c.createArrayOf("int8", oVersions.toArray()));
            ps.setArray(7, c.createArrayOf("text", oTypes.toArray()));
            ps.setArray(8, c.createArrayOf("text", oKeys.toArray()));
            ps.setArray(9, c.createArrayOf("text", oPayloads.toArray()));
            ps.setObject(10, meetingId);
            ps.setLong(11, epoch);
            ps.setLong(12, n);
            ps.setArray(13, c.createArrayOf("uuid", ids));
            ps.setArray(14, c.createArrayOf("text", types));
            ps.setArray(15, c.createArrayOf("text", payloads));
            ps.setArray(16, c.createArrayOf("uuid", audiences));
            if (rider != null) {
                rider.bind(ps, 17);
            }
            q.execute();
            Map<UUID, Long> seqById = new HashMap<>();
            try (ResultSet rs = q.next()) {
                while (rs.next()) {
                    seqById.put(rs.getObject(2, UUID.class), rs.getLong(1));
                }
            }
            if (seqById.size() != n) {
                // no rows: the fenced sequence update matched nothing (another owner raised the epoch)
                throw ApiException.unavailable("owner_changed", "controller epoch superseded; retry");
            }
            for (int k = 0; k < n; k++) {
                seqs[k] = seqById.get(ids[k]);
            }
        }
        List<ControlEvent> out = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            Entry e = entries.get(k);
            out.add(new ControlEvent(meetingId, epoch, seqs[k], ids[k], e.type(), e.payload(), e.audience()));
        }
        trim(c, meetingId, epoch, seqs[0], seqs[n - 1]);
        return out;
    }

    /** Drops events out of retention (and of older epochs) whenever the sequence passes a multiple of 200. */
    private static void trim(Connection c, UUID meetingId, long epoch, long first, long last) throws SQLException {
        long mark = last - last % 200;
        if (mark < first || mark == 0) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(
                "DELETE FROM control_events WHERE meeting_id = ? AND (controller_epoch < ? OR seq <= ?)")) {
            ps.setObject(1, meetingId);
            ps.setLong(2, epoch);
            ps.setLong(3, mark - RETENTION);
            ps.executeUpdate();
        }
    }

    /**
     * The sequence bump (1: count, 2: meeting, 3: epoch), the outbox rows (4: meeting, 5–9: arrays of event ids,
     * aggregate versions, types, keys, payloads) and the control events (10: meeting, 11: epoch, 12: count,
     * 13–16: arrays of event ids, types, payloads, audiences), each array in append order; {@code WITH
     * ORDINALITY} keeps that order, and event n (from 1) gets the old sequence + n.
     */
    private static final String APPEND_ALL = "WITH s AS (UPDATE meetings SET control_seq = control_seq + ? "
            + "WHERE meeting_id = ? AND controller_epoch = ? RETURNING control_seq), "
            + "o AS (" + Outbox.INSERT + "SELECT x.id, ?, x.v, x.t, x.k, x.p::jsonb FROM s, "
            + "unnest(?::uuid[], ?::int8[], ?::text[], ?::text[], ?::text[]) WITH ORDINALITY AS x(id, v, t, k, p, n) "
            + "ORDER BY x.n" + Outbox.ONCE + ") "
            + "INSERT INTO control_events (meeting_id, controller_epoch, seq, event_id, event_type, payload, "
            + "audience_participant_id) SELECT ?, ?, s.control_seq - ? + e.n, e.id, e.t, e.p::jsonb, e.a FROM s, "
            + "unnest(?::uuid[], ?::text[], ?::text[], ?::uuid[]) WITH ORDINALITY AS e(id, t, p, a, n) "
            + "ORDER BY e.n RETURNING seq, event_id";

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
