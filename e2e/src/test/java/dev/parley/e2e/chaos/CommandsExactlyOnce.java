package dev.parley.e2e.chaos;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * No command lost or applied twice. Every command the run issues (through the API, retried with the same
 * Idempotency-Key through faults) is checked against PostgreSQL: at most one {@code commands} row per key, the one
 * id every 2xx answer named; at most one {@code command_committed} and one {@code command_applied} control event
 * for it. At the end: every acknowledged command exists and is no longer {@code pending}, with exactly one
 * {@code command_committed} and a {@code command_applied} exactly when its enforcement was pending.
 */
final class CommandsExactlyOnce extends Invariant {
    /** One command as issued: its key, the ids its answers named, whether any answer was 2xx. */
    static final class Issued {
        final String meetingId, principal, key, type;
        final List<String> ids = new CopyOnWriteArrayList<>();
        volatile boolean acknowledged;
        volatile String lastAnswer = "";

        Issued(String meetingId, String principal, String key, String type) {
            this.meetingId = meetingId;
            this.principal = principal;
            this.key = key;
            this.type = type;
        }

        @Override
        public String toString() {
            return type + "(key " + key.substring(0, Math.min(8, key.length())) + ", ids " + ids + ", last " + lastAnswer + ")";
        }
    }

    /** One {@code commands} row and its control events, as read from PostgreSQL. */
    record Row(String commandId, String state, String enforcement, Map<String, Integer> events) {
    }

    final List<Issued> issued = new CopyOnWriteArrayList<>();

    CommandsExactlyOnce() {
        super("no command lost or applied twice");
    }

    Issued track(String meetingId, String principal, String key, String type) {
        Issued i = new Issued(meetingId, principal, key, type);
        issued.add(i);
        return i;
    }

    /** Continuous check: duplicates and mismatched ids, never "not yet there". */
    void checkNow(Connection c) throws SQLException {
        for (Issued i : issued) {
            List<Row> rows = rows(c, i);
            judge(i, rows, false);
        }
    }

    /** The final check, after the platform healed. */
    void checkFinal(Connection c) throws SQLException {
        for (Issued i : issued) judge(i, rows(c, i), true);
    }

    void judge(Issued i, List<Row> rows, boolean last) {
        check(rows.size() <= 1, () -> rows.size() + " command rows for one Idempotency-Key: " + i + " " + rows);
        if (rows.size() > 1) return;
        Row r = rows.isEmpty() ? null : rows.get(0);
        if (i.acknowledged) {
            check(r != null, () -> "acknowledged command lost (no row): " + i);
            if (r == null) return;
            check(i.ids.stream().allMatch(id -> id.equals(r.commandId())), () -> "answers named other ids than the row "
                + r.commandId() + ": " + i);
        }
        if (r == null) return;
        int committed = r.events().getOrDefault("command_committed", 0);
        int applied = r.events().getOrDefault("command_applied", 0);
        check(committed <= 1 && applied <= 1, () -> "command " + r.commandId() + " has " + committed + " command_committed and "
            + applied + " command_applied events: " + i);
        if (last) {
            check(!"pending".equals(r.enforcement()), () -> "command " + r.commandId() + " still pending at the end: " + i);
            check(committed == 1, () -> "command " + r.commandId() + " has " + committed + " command_committed events: " + i);
            boolean wasPending = "applied".equals(r.enforcement());
            check(applied == (wasPending ? 1 : 0), () -> "command " + r.commandId() + " (" + r.enforcement() + ") has " + applied
                + " command_applied events: " + i);
        }
    }

    private static List<Row> rows(Connection c, Issued i) throws SQLException {
        List<Row> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT command_id::text, state, media_enforcement FROM commands"
            + " WHERE meeting_id = ?::uuid AND principal_id = ?::uuid AND idempotency_key = ?")) {
            ps.setString(1, i.meetingId);
            ps.setString(2, i.principal);
            ps.setString(3, i.key);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.add(new Row(rs.getString(1), rs.getString(2), rs.getString(3), new TreeMap<>()));
            }
        }
        for (Row r : out) {
            try (PreparedStatement ps = c.prepareStatement("SELECT event_type, count(*) FROM control_events"
                + " WHERE meeting_id = ?::uuid AND payload->>'command_id' = ? GROUP BY event_type")) {
                ps.setString(1, i.meetingId);
                ps.setString(2, r.commandId());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) r.events().put(rs.getString(1), rs.getInt(2));
                }
            }
        }
        return out;
    }
}
