package dev.parley.controller.participant;

import dev.parley.controller.testing.FunctionDb;
import dev.parley.controller.testing.FunctionDb.MeetingRow;
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

import static dev.parley.controller.testing.FunctionDb.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The database function {@code join_meeting} (migration V5) on real PostgreSQL: a whole join in one statement, with
 * the semantics the Java join had — idempotent replay, epoch fencing, seat limits under concurrency, gap-free
 * control_seq, and nothing written by a refusal.
 */
class JoinMeetingFunctionIT {
    private static final long EPOCH = 4;
    @RegisterExtension
    static final FunctionDb db = new FunctionDb();

    private static MeetingRow meeting(Connection c, boolean waitingRoom, int maxParticipants) throws SQLException {
        return meeting(c, waitingRoom, maxParticipants, UUID.randomUUID());
    }

    private static MeetingRow meeting(Connection c, boolean waitingRoom, int maxParticipants, UUID tenant)
            throws SQLException {
        return MeetingRow.at(EPOCH).withTenant(tenant).withWaitingRoom(waitingRoom).withMaxParticipants(maxParticipants)
                .insert(c);
    }

    /** Outcome, info, seq, role, admission state of one call. */
    private record Out(String outcome, String info, long seq, String role, String state, UUID participant) {
    }

    private static Out join(Connection c, MeetingRow m, long epoch, UUID principal, UUID device, String key, int tenantMax)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT o_outcome, o_info, o_seq, o_role, o_admission_state, "
                + "o_participant_id FROM join_meeting(?, ?, ?, ?, ?, ?, 'name', ?::jsonb, ?, ?, ?, ?)")) {
            ps.setObject(1, m.id());
            ps.setLong(2, epoch);
            ps.setObject(3, m.tenant());
            ps.setObject(4, principal);
            ps.setObject(5, device);
            ps.setString(6, key);
            ps.setString(7, "{\"_hash\":\"h-" + key + "\"}");
            ps.setObject(8, UUID.randomUUID());
            ps.setInt(9, tenantMax);
            ps.setObject(10, UUID.randomUUID());
            ps.setObject(11, UUID.randomUUID());
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return new Out(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4), rs.getString(5),
                        rs.getObject(6, UUID.class));
            }
        }
    }

    private static long participants(Connection c, UUID m) throws SQLException {
        return count(c, "SELECT count(*) FROM meeting_participants WHERE meeting_id = ?", m);
    }

    private static long events(Connection c, UUID m) throws SQLException {
        return count(c, "SELECT count(*) FROM control_events WHERE meeting_id = ?", m);
    }

    private static long outbox(Connection c, UUID m) throws SQLException {
        return count(c, "SELECT count(*) FROM outbox_events WHERE meeting_id = ?", m);
    }

    private static long seats(Connection c, UUID m) throws SQLException {
        return count(c, "SELECT active_participants FROM meetings WHERE meeting_id = ?", m);
    }

    private static long controlSeq(Connection c, UUID m) throws SQLException {
        return count(c, "SELECT control_seq FROM meetings WHERE meeting_id = ?", m);
    }

    @Test
    void organizerBecomesHostGoesLiveAndTheSameKeyReplaysWithoutWriting() throws Exception {
        try (Connection c = db.connect()) {
            MeetingRow m = meeting(c, true, 10);
            UUID device = UUID.randomUUID();
            Out first = join(c, m, EPOCH, m.organizer(), device, "k1", 100);
            assertThat(first.outcome()).isEqualTo("joined");
            assertThat(first.role()).isEqualTo("host");
            assertThat(first.state()).isEqualTo("admitted");
            assertThat(first.seq()).isEqualTo(1);
            assertThat(count(c, "SELECT count(*) FROM meetings WHERE meeting_id = ? AND status = 'live' AND version = 2",
                    m.id())).isEqualTo(1);
            Out again = join(c, m, EPOCH, m.organizer(), device, "k1", 100);
            assertThat(again.outcome()).isEqualTo("existing");
            assertThat(again.participant()).isEqualTo(first.participant());
            assertThat(participants(c, m.id())).isEqualTo(1);
            assertThat(events(c, m.id())).isEqualTo(1);
            assertThat(outbox(c, m.id())).isEqualTo(1);
            assertThat(seats(c, m.id())).isEqualTo(1);
            assertThat(controlSeq(c, m.id())).isEqualTo(1);
            // a new key from the same device while its session is active: refused, nothing written
            Out device2 = join(c, m, EPOCH, m.organizer(), device, "k2", 100);
            assertThat(device2.outcome()).isEqualTo("device_active");
            assertThat(device2.info()).isEqualTo(first.participant().toString());
            // an attendee with the waiting room on waits; the event is the next sequence number
            Out attendee = join(c, m, EPOCH, UUID.randomUUID(), UUID.randomUUID(), "k3", 100);
            assertThat(attendee.outcome()).isEqualTo("joined");
            assertThat(attendee.state()).isEqualTo("waiting");
            assertThat(attendee.role()).isEqualTo("attendee");
            assertThat(attendee.seq()).isEqualTo(2);
            assertThat(count(c, "SELECT count(*) FROM control_events WHERE meeting_id = ? AND seq = 2 "
                    + "AND event_type = 'participant_waiting' AND payload->>'admission_state' = 'waiting'", m.id())).isEqualTo(1);
            assertThat(count(c, "SELECT count(*) FROM outbox_events WHERE meeting_id = ? AND event_type = 'participant.waiting'",
                    m.id())).isEqualTo(1);
        }
    }

    @Test
    void aStaleEpochOrAnotherTenantWritesNothing() throws Exception {
        try (Connection c = db.connect()) {
            MeetingRow m = meeting(c, false, 10);
            Out stale = join(c, m, EPOCH - 1, UUID.randomUUID(), UUID.randomUUID(), "k", 100);
            assertThat(stale.outcome()).isEqualTo("not_owner");
            assertThat(stale.info()).isEqualTo(String.valueOf(EPOCH));
            Out other = join(c, m.withTenant(UUID.randomUUID()), EPOCH, UUID.randomUUID(), UUID.randomUUID(), "k", 100);
            assertThat(other.outcome()).isEqualTo("meeting_not_found");
            assertThat(participants(c, m.id())).isZero();
            assertThat(events(c, m.id())).isZero();
            assertThat(outbox(c, m.id())).isZero();
            assertThat(seats(c, m.id())).isZero();
            assertThat(controlSeq(c, m.id())).isZero();
            assertThat(count(c, "SELECT count(*) FROM tenant_usage WHERE tenant_id = (SELECT tenant_id FROM meetings "
                    + "WHERE meeting_id = ?)", m.id())).isZero();
        }
    }

    @Test
    void concurrentJoinsNeverOvershootTheMeetingLimitAndTheSequenceStaysGapFree() throws Exception {
        MeetingRow m;
        try (Connection c = db.connect()) {
            m = meeting(c, false, 3);
        }
        int threads = 12;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Out>> results = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                int n = i;
                results.add(pool.submit(() -> {
                    try (Connection c = db.connect()) {
                        return join(c, m, EPOCH, UUID.randomUUID(), UUID.randomUUID(), "k" + n, 1000);
                    }
                }));
            }
            List<String> outcomes = new ArrayList<>();
            List<Long> seqs = new ArrayList<>();
            for (Future<Out> f : results) {
                Out o = f.get();
                outcomes.add(o.outcome());
                if ("joined".equals(o.outcome())) {
                    seqs.add(o.seq());
                }
            }
            assertThat(outcomes).filteredOn("joined"::equals).hasSize(3);
            assertThat(outcomes).filteredOn("meeting_full"::equals).hasSize(threads - 3);
            assertThat(seqs).containsExactlyInAnyOrder(1L, 2L, 3L);
        } finally {
            pool.shutdownNow();
        }
        try (Connection c = db.connect()) {
            assertThat(seats(c, m.id())).isEqualTo(3);
            assertThat(participants(c, m.id())).isEqualTo(3);
            assertThat(events(c, m.id())).isEqualTo(3);
            assertThat(outbox(c, m.id())).isEqualTo(3);
            assertThat(controlSeq(c, m.id())).isEqualTo(3);
            assertThat(count(c, "SELECT active_participants FROM tenant_usage WHERE tenant_id = (SELECT tenant_id "
                    + "FROM meetings WHERE meeting_id = ?)", m.id())).isEqualTo(3);
        }
    }

    @Test
    void theTenantLimitFailsTheWholeStatementSoTheMeetingSeatIsNotKept() throws Exception {
        try (Connection c = db.connect()) {
            MeetingRow m = meeting(c, false, 10);
            assertThat(join(c, m, EPOCH, UUID.randomUUID(), UUID.randomUUID(), "a", 1).outcome()).isEqualTo("joined");
            assertThatThrownBy(() -> join(c, m, EPOCH, UUID.randomUUID(), UUID.randomUUID(), "b", 1))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("P0429"));
            assertThat(seats(c, m.id())).isEqualTo(1);
            assertThat(participants(c, m.id())).isEqualTo(1);
            assertThat(events(c, m.id())).isEqualTo(1);
            assertThat(outbox(c, m.id())).isEqualTo(1);
            assertThat(controlSeq(c, m.id())).isEqualTo(1);
        }
    }

    @Test
    void concurrentJoinsAcrossMeetingsNeverOvershootTheTenantLimit() throws Exception {
        UUID tenant = UUID.randomUUID();
        MeetingRow a;
        MeetingRow b;
        try (Connection c = db.connect()) {
            a = meeting(c, false, 100, tenant);
            b = meeting(c, false, 100, tenant);
        }
        int threads = 10;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                MeetingRow m = i % 2 == 0 ? a : b;
                String key = "t" + i;
                results.add(pool.submit(() -> {
                    try (Connection c = db.connect()) {
                        return join(c, m, EPOCH, UUID.randomUUID(), UUID.randomUUID(), key, 4).outcome();
                    } catch (SQLException e) {
                        return e.getSQLState();
                    }
                }));
            }
            List<String> outcomes = new ArrayList<>();
            for (Future<String> f : results) {
                outcomes.add(f.get());
            }
            assertThat(outcomes).filteredOn("joined"::equals).hasSize(4);
            assertThat(outcomes).filteredOn("P0429"::equals).hasSize(threads - 4);
        } finally {
            pool.shutdownNow();
        }
        try (Connection c = db.connect()) {
            // the refused joins left nothing behind: seats, rows and events match the four that joined
            assertThat(seats(c, a.id()) + seats(c, b.id())).isEqualTo(4);
            assertThat(participants(c, a.id()) + participants(c, b.id())).isEqualTo(4);
            assertThat(events(c, a.id()) + events(c, b.id())).isEqualTo(4);
            assertThat(controlSeq(c, a.id()) + controlSeq(c, b.id())).isEqualTo(4);
            assertThat(count(c, "SELECT active_participants FROM tenant_usage WHERE tenant_id = (SELECT tenant_id "
                    + "FROM meetings WHERE meeting_id = ?)", a.id())).isEqualTo(4);
        }
    }

    @Test
    void bannedLockedAndEndedAreRefusedBeforeAnyWrite() throws Exception {
        try (Connection c = db.connect()) {
            MeetingRow m = meeting(c, false, 10);
            UUID banned = UUID.randomUUID();
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO principal_bans (meeting_id, principal_id, "
                    + "banned_participant_id) VALUES (?, ?, ?)")) {
                ps.setObject(1, m.id());
                ps.setObject(2, banned);
                ps.setObject(3, UUID.randomUUID());
                ps.executeUpdate();
            }
            assertThat(join(c, m, EPOCH, banned, UUID.randomUUID(), "b", 100).outcome()).isEqualTo("banned");
            try (PreparedStatement ps = c.prepareStatement("UPDATE meetings SET locked = true WHERE meeting_id = ?")) {
                ps.setObject(1, m.id());
                ps.executeUpdate();
            }
            assertThat(join(c, m, EPOCH, UUID.randomUUID(), UUID.randomUUID(), "l", 100).outcome()).isEqualTo("locked");
            // the organizer may still join a locked meeting
            assertThat(join(c, m, EPOCH, m.organizer(), UUID.randomUUID(), "o", 100).outcome()).isEqualTo("joined");
            try (PreparedStatement ps = c.prepareStatement("UPDATE meetings SET status = 'ended' WHERE meeting_id = ?")) {
                ps.setObject(1, m.id());
                ps.executeUpdate();
            }
            Out ended = join(c, m, EPOCH, m.organizer(), UUID.randomUUID(), "o2", 100);
            assertThat(ended.outcome()).isEqualTo("meeting_ended");
            assertThat(ended.info()).isEqualTo("ended");
            assertThat(participants(c, m.id())).isEqualTo(1);
            assertThat(events(c, m.id())).isEqualTo(1);
            assertThat(seats(c, m.id())).isEqualTo(1);
        }
    }
}
