package dev.parley.controller.command;

import dev.parley.controller.testing.FunctionDb;
import dev.parley.controller.testing.FunctionDb.MeetingRow;
import dev.parley.controller.testing.FunctionDb.ParticipantRow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The database function {@code admit_participant} (migration V5) on real PostgreSQL: the usual admit writes what the
 * general command path writes (participant row, two gap-free events in order, two outbox rows in order, the command
 * record); every other case writes nothing and says 'fallback' (the general path answers it).
 */
class AdmitParticipantFunctionIT {
    private static final long EPOCH = 3;
    @RegisterExtension
    static final FunctionDb db = new FunctionDb();

    private record Room(UUID meeting, UUID tenant, UUID host, UUID waiting, UUID waitingPrincipal) {
    }

    private static void participant(Connection c, UUID meeting, UUID id, UUID principal, String role, String state)
            throws SQLException {
        ParticipantRow.of(meeting, id, principal).withRole(role).withState(state).insert(c);
    }

    /** A scheduled meeting with its organizer as admitted host and one waiting attendee. */
    private static Room room(Connection c) throws SQLException {
        MeetingRow m = MeetingRow.at(EPOCH).withControlSeq(5).insert(c);
        Room r = new Room(m.id(), m.tenant(), m.organizer(), UUID.randomUUID(), UUID.randomUUID());
        participant(c, r.meeting(), UUID.randomUUID(), r.host(), "host", "admitted");
        participant(c, r.meeting(), r.waiting(), r.waitingPrincipal(), "attendee", "waiting");
        return r;
    }

    private static String admit(Connection c, Room r, long epoch, UUID principal, String key, UUID target, Long expected)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT o_outcome, o_seq, o_version, o_admission_state "
                + "FROM admit_participant(?, ?, ?, ?, ?, 'hash', ?, ?, ?, ?, ?)")) {
            ps.setObject(1, r.meeting());
            ps.setLong(2, epoch);
            ps.setObject(3, r.tenant());
            ps.setObject(4, principal);
            ps.setString(5, key);
            ps.setObject(6, target);
            if (expected == null) {
                ps.setNull(7, java.sql.Types.BIGINT);
            } else {
                ps.setLong(7, expected);
            }
            ps.setObject(8, UUID.randomUUID());
            ps.setArray(9, c.createArrayOf("uuid", new UUID[]{UUID.randomUUID(), UUID.randomUUID()}));
            ps.setArray(10, c.createArrayOf("uuid", new UUID[]{UUID.randomUUID(), UUID.randomUUID()}));
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                String out = rs.getString(1);
                return "admitted".equals(out) ? out + " seq=" + rs.getLong(2) + " v=" + rs.getLong(3) + " " + rs.getString(4) : out;
            }
        }
    }

    private static List<String> rows(Connection c, String sql, UUID meeting) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setObject(1, meeting);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    /** Everything the function may write, as text (to compare before and after a refusal). */
    private static List<String> state(Connection c, UUID meeting) throws SQLException {
        List<String> all = new ArrayList<>();
        all.addAll(rows(c, "SELECT status || ' ' || version || ' ' || control_seq FROM meetings WHERE meeting_id = ?", meeting));
        all.addAll(rows(c, "SELECT participant_id || ' ' || admission_state || ' ' || version FROM meeting_participants "
                + "WHERE meeting_id = ? ORDER BY participant_id", meeting));
        all.addAll(rows(c, "SELECT seq || ' ' || event_type FROM control_events WHERE meeting_id = ? ORDER BY seq", meeting));
        all.addAll(rows(c, "SELECT event_type FROM outbox_events WHERE meeting_id = ? ORDER BY position", meeting));
        all.addAll(rows(c, "SELECT command_type || ' ' || response::text FROM commands WHERE meeting_id = ?", meeting));
        return all;
    }

    @Test
    void theUsualAdmitWritesWhatTheGeneralPathWrites() throws Exception {
        try (Connection c = db.connect()) {
            Room r = room(c);
            assertThat(admit(c, r, EPOCH, r.host(), "a", r.waiting(), 1L)).isEqualTo("admitted seq=6 v=2 admitted");
            assertThat(rows(c, "SELECT status || ' ' || version || ' ' || control_seq FROM meetings WHERE meeting_id = ?",
                    r.meeting())).containsExactly("live 2 7");
            assertThat(rows(c, "SELECT seq || ' ' || event_type || ' ' || coalesce(payload->>'participant_version', "
                    + "payload->>'command_type') FROM control_events WHERE meeting_id = ? ORDER BY seq", r.meeting()))
                    .containsExactly("6 participant_admitted 2", "7 command_committed admit");
            assertThat(rows(c, "SELECT event_type || ' ' || idempotency_key || ' ' || aggregate_version FROM outbox_events "
                    + "WHERE meeting_id = ? ORDER BY position", r.meeting()))
                    .containsExactly("participant.participant_admitted " + r.waiting() + ":2 2", rows(c,
                            "SELECT 'command.admit ' || command_id || ' 1' FROM commands WHERE meeting_id = ?", r.meeting()).get(0));
            assertThat(rows(c, "SELECT state || ' ' || media_enforcement || ' ' || (response->>'participant_version') "
                    + "FROM commands WHERE meeting_id = ?", r.meeting())).containsExactly("committed not_required 2");
            // the same key again: the stored command answers (general path), nothing more written here
            List<String> before = state(c, r.meeting());
            assertThat(admit(c, r, EPOCH, r.host(), "a", r.waiting(), 1L)).isEqualTo("fallback");
            assertThat(state(c, r.meeting())).isEqualTo(before);
        }
    }

    @Test
    void everyOtherCaseWritesNothing() throws Exception {
        try (Connection c = db.connect()) {
            Room r = room(c);
            UUID cohost = UUID.randomUUID();
            List<String> before = state(c, r.meeting());
            assertThat(admit(c, r, EPOCH - 1, r.host(), "k1", r.waiting(), null)).isEqualTo("fallback"); // stale epoch
            assertThat(admit(c, r, EPOCH, r.waitingPrincipal(), "k2", r.waiting(), null)).isEqualTo("fallback"); // not a moderator
            assertThat(admit(c, r, EPOCH, r.host(), "k3", UUID.randomUUID(), null)).isEqualTo("fallback"); // no such target
            assertThat(admit(c, r, EPOCH, r.host(), "k4", r.waiting(), 7L)).isEqualTo("fallback"); // version mismatch
            assertThat(admit(c, new Room(r.meeting(), UUID.randomUUID(), r.host(), r.waiting(), r.waitingPrincipal()),
                    EPOCH, r.host(), "k5", r.waiting(), null)).isEqualTo("fallback"); // another tenant
            participant(c, r.meeting(), UUID.randomUUID(), cohost, "cohost", "admitted");
            UUID hostRow = UUID.fromString(rows(c, "SELECT participant_id::text FROM meeting_participants WHERE meeting_id = ? "
                    + "AND role = 'host'", r.meeting()).get(0));
            before = state(c, r.meeting());
            assertThat(admit(c, r, EPOCH, cohost, "k6", hostRow, null)).isEqualTo("fallback"); // cohost on the host (not waiting either)
            try (PreparedStatement ps = c.prepareStatement("UPDATE meetings SET status = 'ending' WHERE meeting_id = ?")) {
                ps.setObject(1, r.meeting());
                ps.executeUpdate();
            }
            List<String> ending = state(c, r.meeting());
            assertThat(admit(c, r, EPOCH, r.host(), "k7", r.waiting(), null)).isEqualTo("fallback"); // meeting ending
            assertThat(state(c, r.meeting())).isEqualTo(ending);
            assertThat(ending.subList(1, ending.size())).isEqualTo(before.subList(1, before.size()));
        }
    }

    @Test
    void concurrentAdmitsOfOneParticipantAdmitOnce() throws Exception {
        Room r;
        try (Connection c = db.connect()) {
            r = room(c);
        }
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String key = "key-" + i;
                results.add(pool.submit(() -> {
                    try (Connection c = db.connect()) {
                        return admit(c, r, EPOCH, r.host(), key, r.waiting(), null);
                    }
                }));
            }
            List<String> outcomes = new ArrayList<>();
            for (Future<String> f : results) {
                outcomes.add(f.get());
            }
            assertThat(outcomes).filteredOn(o -> o.startsWith("admitted")).hasSize(1);
            assertThat(outcomes).filteredOn("fallback"::equals).hasSize(7);
        } finally {
            pool.shutdownNow();
        }
        try (Connection c = db.connect()) {
            assertThat(rows(c, "SELECT seq::text FROM control_events WHERE meeting_id = ? ORDER BY seq", r.meeting()))
                    .containsExactly("6", "7");
            assertThat(rows(c, "SELECT count(*)::text FROM commands WHERE meeting_id = ?", r.meeting())).containsExactly("1");
        }
    }
}
