package dev.parley.controller.roster;

import dev.parley.controller.db.Db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The roster projection's SQL: which meetings are behind, the per-meeting advisory locks, the events after a
 * checkpoint, and the conditional writes of {@code roster_entries} and {@code roster_checkpoints} (migration V6).
 * Methods taking a {@link Connection} run inside the caller's transaction.
 */
final class RosterStore {
    /** First key of the two-key advisory lock ("ROST"), the second is derived from the meeting id. */
    static final int LOCK_CLASS = 0x524F5354;
    /** Meetings caught up per round at most (the rest next round). */
    static final int MEETINGS_PER_ROUND = 500;

    /** A meeting's control cursor when its catch-up started. */
    record Head(long epoch, long seq) {
    }

    /**
     * Meetings whose control cursor moved since their checkpoint (they may have roster events to apply). Every roster
     * event is committed with a control-log append, which advances {@code control_seq} (a new owner resets it with a
     * new {@code controller_epoch}), so an unchanged cursor means nothing new. A checkpoint without a cursor is a
     * catch-up cut short by the per-round limit.
     */
    private static final String IS_BEHIND = "((k.meeting_id IS NOT NULL AND k.seen_epoch IS NULL) "
            + "OR (m.controller_epoch, m.control_seq) "
            + "IS DISTINCT FROM (COALESCE(k.seen_epoch, m.controller_epoch), COALESCE(k.seen_seq, 0)))";
    /** Every meeting that is behind: a scan of {@code meetings} (≈ 50 ms at 20 000 meetings), so only now and then. */
    private static final String BEHIND = "SELECT m.meeting_id FROM meetings m "
            + "LEFT JOIN roster_checkpoints k ON k.meeting_id = m.meeting_id WHERE " + IS_BEHIND
            + " LIMIT " + MEETINGS_PER_ROUND;
    /**
     * The usual round: the meetings of the newest pending (not yet published) outbox rows, through the relay's own
     * {@code outbox_pending} index — a new roster event is pending for at least until the relay's next pass. An event
     * the relay published before a round saw it is found by the next full scan.
     */
    private static final String RECENTLY_BEHIND = "SELECT m.meeting_id FROM meetings m "
            + "LEFT JOIN roster_checkpoints k ON k.meeting_id = m.meeting_id WHERE " + IS_BEHIND
            + " AND m.meeting_id = ANY (ARRAY(SELECT DISTINCT meeting_id FROM (SELECT meeting_id FROM outbox_events "
            + "WHERE published_at IS NULL AND dead_lettered_at IS NULL ORDER BY position DESC LIMIT 2000) p)) "
            + "LIMIT " + MEETINGS_PER_ROUND;

    /** A participant event: the entry becomes the event's participant document, unless it is at a later position. */
    private static final String UPSERT = "INSERT INTO roster_entries AS r (meeting_id, participant_id, display_name, role, "
            + "admission_state, participant_version, audio_publish, video_publish, screen_publish, last_position, "
            + "last_event_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (meeting_id, participant_id) DO UPDATE SET "
            + "display_name = EXCLUDED.display_name, role = EXCLUDED.role, admission_state = EXCLUDED.admission_state, "
            + "participant_version = EXCLUDED.participant_version, audio_publish = EXCLUDED.audio_publish, "
            + "video_publish = EXCLUDED.video_publish, screen_publish = EXCLUDED.screen_publish, "
            + "last_position = EXCLUDED.last_position, last_event_id = EXCLUDED.last_event_id, updated_at = now() "
            + "WHERE r.last_position < EXCLUDED.last_position";

    /** {@link RosterChange.Ending}, to the meeting's active entries below the event's position. */
    private static final String ENDING = "UPDATE roster_entries SET admission_state = 'left', audio_publish = false, "
            + "video_publish = false, screen_publish = false, role = CASE WHEN role = 'host' THEN 'attendee' ELSE role END, "
            + "participant_version = participant_version + 1, last_position = ?, last_event_id = ?, updated_at = now() "
            + "WHERE meeting_id = ? AND admission_state IN ('waiting','admitted') AND last_position < ?";

    private final Db db;

    RosterStore(Db db) {
        this.db = db;
    }

    /** The meetings that are behind: all of them ({@code full}) or those with pending outbox rows. */
    List<UUID> behind(boolean full) {
        return db.read(c -> {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(full ? BEHIND : RECENTLY_BEHIND)) {
                return ids(rs);
            }
        });
    }

    /** Every meeting with a row, a checkpoint or entries (the last two may outlive their meeting). */
    List<UUID> allMeetings() {
        return db.read(c -> {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                    "SELECT meeting_id FROM meetings UNION SELECT meeting_id FROM roster_checkpoints "
                            + "UNION SELECT DISTINCT meeting_id FROM roster_entries")) {
                return ids(rs);
            }
        });
    }

    private static List<UUID> ids(ResultSet rs) throws SQLException {
        List<UUID> out = new ArrayList<>();
        while (rs.next()) {
            out.add(rs.getObject(1, UUID.class));
        }
        return out;
    }

    /** The meeting's advisory lock for this transaction: waits for it, or (not {@code wait}) false when it is held. */
    static boolean lock(Connection c, UUID meetingId, boolean wait) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(wait ? "SELECT true FROM pg_advisory_xact_lock(?, ?)"
                : "SELECT pg_try_advisory_xact_lock(?, ?)")) {
            ps.setInt(1, LOCK_CLASS);
            ps.setInt(2, meetingId.hashCode());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return wait || rs.getBoolean(1);
            }
        }
    }

    /** The meetings whose advisory lock this transaction got (one statement; never waits). */
    static List<UUID> tryLock(Connection c, List<UUID> meetings) throws SQLException {
        Integer[] keys = new Integer[meetings.size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = meetings.get(i).hashCode();
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT x.id FROM unnest(?::uuid[], ?::int4[]) AS x(id, k) "
                + "WHERE pg_try_advisory_xact_lock(?, x.k)")) {
            ps.setArray(1, c.createArrayOf("uuid", meetings.toArray()));
            ps.setArray(2, c.createArrayOf("int4", keys));
            ps.setInt(3, LOCK_CLASS);
            try (ResultSet rs = ps.executeQuery()) {
                return ids(rs);
            }
        }
    }

    /** Deletes the meeting's entries and checkpoint (a rebuild, under the meeting's lock). */
    static void forget(Connection c, UUID meetingId) throws SQLException {
        for (String sql : new String[]{"DELETE FROM roster_entries WHERE meeting_id = ?",
                "DELETE FROM roster_checkpoints WHERE meeting_id = ?"}) {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setObject(1, meetingId);
                ps.executeUpdate();
            }
        }
    }

    /**
     * The meetings' control cursors (one statement); {@code lastApplied} receives each one's checkpoint position
     * (0 without a checkpoint).
     */
    static Map<UUID, Head> heads(Connection c, List<UUID> meetings, Map<UUID, Long> lastApplied) throws SQLException {
        Map<UUID, Head> heads = new java.util.HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT m.meeting_id, m.controller_epoch, m.control_seq, "
                + "COALESCE(k.last_position, 0) FROM meetings m LEFT JOIN roster_checkpoints k "
                + "ON k.meeting_id = m.meeting_id WHERE m.meeting_id = ANY (?)")) {
            ps.setArray(1, c.createArrayOf("uuid", meetings.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    UUID m = rs.getObject(1, UUID.class);
                    heads.put(m, new Head(rs.getLong(2), rs.getLong(3)));
                    lastApplied.put(m, rs.getLong(4));
                }
            }
        }
        return heads;
    }

    /** Events after each meeting's position in {@code after}, by meeting then position; at most {@code limit}. */
    static List<RosterEvent> events(Connection c, List<UUID> meetings, Map<UUID, Long> after, int limit)
            throws SQLException {
        List<RosterEvent> out = new ArrayList<>();
        Long[] positions = new Long[meetings.size()];
        for (int i = 0; i < positions.length; i++) {
            positions[i] = after.get(meetings.get(i));
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT o.meeting_id, o.position, o.event_id, o.event_type, "
                + "o.payload::text FROM unnest(?::uuid[], ?::int8[]) AS f(id, after) "
                + "JOIN outbox_events o ON o.meeting_id = f.id AND o.event_type = ANY (?) AND o.position > f.after "
                + "ORDER BY o.meeting_id, o.position LIMIT " + limit)) {
            ps.setArray(1, c.createArrayOf("uuid", meetings.toArray()));
            ps.setArray(2, c.createArrayOf("int8", positions));
            ps.setArray(3, c.createArrayOf("text", RosterEvent.TYPES.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new RosterEvent(rs.getObject(1, UUID.class), rs.getLong(2), rs.getObject(3, UUID.class),
                            rs.getString(4), rs.getString(5)));
                }
            }
        }
        return out;
    }

    /**
     * Writes the changes in order: participant entries in one batch, flushed before each meeting ending (statements
     * run in event order). Each write is conditional on the entry being below the change's position.
     */
    static void write(Connection c, List<RosterChange> changes) throws SQLException {
        if (changes.isEmpty()) {
            return;
        }
        try (PreparedStatement upsert = c.prepareStatement(UPSERT); PreparedStatement ending = c.prepareStatement(ENDING)) {
            for (RosterChange change : changes) {
                switch (change) {
                    case RosterChange.Ending e -> {
                        upsert.executeBatch();
                        ending.setLong(1, e.position());
                        ending.setObject(2, e.eventId());
                        ending.setObject(3, e.meetingId());
                        ending.setLong(4, e.position());
                        ending.executeUpdate();
                    }
                    case RosterChange.Entry e -> {
                        upsert.setObject(1, e.meetingId());
                        upsert.setObject(2, e.participantId());
                        upsert.setString(3, e.displayName());
                        upsert.setString(4, e.role());
                        upsert.setString(5, e.admissionState());
                        upsert.setLong(6, e.participantVersion());
                        upsert.setBoolean(7, e.audio());
                        upsert.setBoolean(8, e.video());
                        upsert.setBoolean(9, e.screen());
                        upsert.setLong(10, e.position());
                        upsert.setObject(11, e.eventId());
                        upsert.addBatch();
                    }
                }
            }
            upsert.executeBatch();
        }
    }

    /**
     * One statement for all the meetings' checkpoints: the last position applied (never lowered) and the cursor read
     * at the start (never lowered; left as it was for a meeting cut short).
     */
    static void writeCheckpoints(Connection c, Map<UUID, Head> heads, Map<UUID, Long> last, Set<UUID> cut)
            throws SQLException {
        int size = heads.size();
        UUID[] ids = new UUID[size];
        Long[] positions = new Long[size];
        Long[] epochs = new Long[size];
        Long[] seqs = new Long[size];
        int i = 0;
        for (Map.Entry<UUID, Head> h : heads.entrySet()) {
            boolean done = !cut.contains(h.getKey());
            ids[i] = h.getKey();
            positions[i] = last.get(h.getKey());
            epochs[i] = done ? h.getValue().epoch() : null;
            seqs[i] = done ? h.getValue().seq() : null;
            i++;
        }
        String newer = "(k.seen_epoch IS NULL OR (EXCLUDED.seen_epoch, EXCLUDED.seen_seq) > (k.seen_epoch, k.seen_seq))";
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO roster_checkpoints AS k (meeting_id, last_position, "
                + "seen_epoch, seen_seq) SELECT * FROM unnest(?::uuid[], ?::int8[], ?::int8[], ?::int8[]) "
                + "ON CONFLICT (meeting_id) DO UPDATE SET "
                + "last_position = GREATEST(k.last_position, EXCLUDED.last_position), "
                + "seen_epoch = CASE WHEN EXCLUDED.seen_epoch IS NOT NULL AND " + newer
                + " THEN EXCLUDED.seen_epoch ELSE k.seen_epoch END, "
                + "seen_seq = CASE WHEN EXCLUDED.seen_epoch IS NOT NULL AND " + newer
                + " THEN EXCLUDED.seen_seq ELSE k.seen_seq END, updated_at = now()")) {
            ps.setArray(1, c.createArrayOf("uuid", ids));
            ps.setArray(2, c.createArrayOf("int8", positions));
            ps.setArray(3, c.createArrayOf("int8", epochs));
            ps.setArray(4, c.createArrayOf("int8", seqs));
            ps.executeUpdate();
        }
    }

    /** {@code roster_projection_lag}: control events committed but not yet examined, summed over meetings. */
    double lag() {
        try {
            return db.read(c -> {
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                        "SELECT COALESCE(sum(CASE WHEN k.seen_epoch IS NULL OR k.seen_epoch <> m.controller_epoch "
                                + "THEN m.control_seq ELSE m.control_seq - k.seen_seq END), 0) FROM meetings m "
                                + "LEFT JOIN roster_checkpoints k ON k.meeting_id = m.meeting_id "
                                + "WHERE (k.meeting_id IS NOT NULL AND k.seen_epoch IS NULL) "
                                + "OR (m.controller_epoch, m.control_seq) IS DISTINCT FROM "
                                + "(COALESCE(k.seen_epoch, m.controller_epoch), COALESCE(k.seen_seq, 0))")) {
                    return rs.next() ? rs.getDouble(1) : 0.0;
                }
            });
        } catch (RuntimeException e) {
            return Double.NaN; // database unavailable: the health endpoint says so
        }
    }
}
