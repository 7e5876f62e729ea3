package dev.parley.controller.transport;

import dev.parley.controller.testing.FunctionDb;
import dev.parley.controller.testing.FunctionDb.MeetingRow;
import dev.parley.controller.testing.FunctionDb.ParticipantRow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

import static dev.parley.controller.testing.FunctionDb.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The database function {@code reserve_transport} (migration V5) on real PostgreSQL: generation semantics (a new
 * attempt names the current generation and gets current + 1; the same key recovers the same generation; retries
 * never bump), epoch fencing, and SFU placement questions answered without writing.
 */
class ReserveTransportFunctionIT {
    private static final long EPOCH = 9;
    @RegisterExtension
    static final FunctionDb db = new FunctionDb();

    private record Seat(UUID meeting, UUID tenant, UUID principal, UUID participant) {
    }

    /** A meeting (on {@code pod}, or none) with one participant in {@code state}. */
    private static Seat seat(Connection c, String pod, String state) throws SQLException {
        MeetingRow m = MeetingRow.at(EPOCH).withSfuPod(pod).insert(c);
        Seat s = new Seat(m.id(), m.tenant(), UUID.randomUUID(), UUID.randomUUID());
        ParticipantRow.of(s.meeting(), s.participant(), s.principal()).withKey("j").withState(state).insert(c);
        return s;
    }

    private record Out(String outcome, String info, long generation, String pod, long rowGeneration) {
    }

    private static Out reserve(Connection c, Seat s, long epoch, String key, String hash, long expected, String fallback,
                               String[] usable, String[] unusable) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT o_outcome, o_info, o_generation, o_pod, o_transport_generation "
                + "FROM reserve_transport(?, ?, ?, ?, ?, ?, ?, ?, 'dev', ?, ?, ?)")) {
            ps.setObject(1, s.meeting());
            ps.setLong(2, epoch);
            ps.setObject(3, s.tenant());
            ps.setObject(4, s.principal());
            ps.setObject(5, s.participant());
            ps.setString(6, key);
            ps.setString(7, hash);
            ps.setLong(8, expected);
            ps.setString(9, fallback);
            ps.setArray(10, c.createArrayOf("text", usable));
            ps.setArray(11, c.createArrayOf("text", unusable));
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return new Out(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4), rs.getLong(5));
            }
        }
    }

    private static final String[] NONE = new String[0];

    @Test
    void aNewAttemptBumpsOnceAndItsRetriesRecoverTheSameGeneration() throws Exception {
        try (Connection c = db.connect()) {
            Seat s = seat(c, null, "admitted");
            Out first = reserve(c, s, EPOCH, "a1", "h", 0, "sfu-a", new String[]{"sfu-a"}, NONE);
            assertThat(first.outcome()).isEqualTo("reserved");
            assertThat(first.generation()).isEqualTo(1);
            assertThat(first.pod()).isEqualTo("sfu-a");
            assertThat(first.rowGeneration()).isEqualTo(1);
            assertThat(text(c, "SELECT sfu_pod FROM meetings WHERE meeting_id = ?", s.meeting())).isEqualTo("sfu-a");
            Out retry = reserve(c, s, EPOCH, "a1", "h", 0, "sfu-a", new String[]{"sfu-a"}, NONE);
            assertThat(retry.outcome()).isEqualTo("replay");
            assertThat(retry.generation()).isEqualTo(1);
            assertThat(text(c, "SELECT transport_generation FROM meeting_participants WHERE meeting_id = ?", s.meeting()))
                    .isEqualTo("1");
            assertThat(reserve(c, s, EPOCH, "a1", "other", 0, "sfu-a", new String[]{"sfu-a"}, NONE).outcome())
                    .isEqualTo("key_reused");
            // a new attempt naming an old generation: refused with the current one, nothing written
            Out stale = reserve(c, s, EPOCH, "a2", "h", 0, "sfu-a", new String[]{"sfu-a"}, NONE);
            assertThat(stale.outcome()).isEqualTo("stale_generation");
            assertThat(stale.info()).isEqualTo("1");
            Out second = reserve(c, s, EPOCH, "a2", "h", 1, "sfu-a", new String[]{"sfu-a"}, NONE);
            assertThat(second.outcome()).isEqualTo("reserved");
            assertThat(second.generation()).isEqualTo(2);
            // the first attempt is no longer current
            Out old = reserve(c, s, EPOCH, "a1", "h", 0, "sfu-a", new String[]{"sfu-a"}, NONE);
            assertThat(old.outcome()).isEqualTo("superseded");
            assertThat(old.info()).isEqualTo("2");
            assertThat(text(c, "SELECT count(*) FROM transport_attempts WHERE meeting_id = ?", s.meeting())).isEqualTo("2");
        }
    }

    @Test
    void aStaleEpochOrAWaitingParticipantWritesNothing() throws Exception {
        try (Connection c = db.connect()) {
            Seat s = seat(c, null, "admitted");
            Out stale = reserve(c, s, EPOCH - 1, "k", "h", 0, "sfu-a", new String[]{"sfu-a"}, NONE);
            assertThat(stale.outcome()).isEqualTo("not_owner");
            assertThat(stale.info()).isEqualTo(String.valueOf(EPOCH));
            Seat w = seat(c, null, "waiting");
            Out waiting = reserve(c, w, EPOCH, "k", "h", 0, "sfu-a", new String[]{"sfu-a"}, NONE);
            assertThat(waiting.outcome()).isEqualTo("not_admitted");
            assertThat(waiting.info()).isEqualTo("waiting");
            for (Seat x : new Seat[]{s, w}) {
                assertThat(text(c, "SELECT count(*) FROM transport_attempts WHERE meeting_id = ?", x.meeting())).isEqualTo("0");
                assertThat(text(c, "SELECT transport_generation FROM meeting_participants WHERE meeting_id = ?", x.meeting()))
                        .isEqualTo("0");
                assertThat(text(c, "SELECT sfu_pod FROM meetings WHERE meeting_id = ?", x.meeting())).isNull();
            }
        }
    }

    @Test
    void theMeetingStaysOnItsSfuWhileUsableAndAnUnknownSfuIsAskedAboutFirst() throws Exception {
        try (Connection c = db.connect()) {
            Seat s = seat(c, "sfu-b", "admitted");
            // the controller did not know sfu-b yet: nothing written, the pod named
            Out ask = reserve(c, s, EPOCH, "k", "h", 0, "sfu-a", new String[]{"sfu-a"}, NONE);
            assertThat(ask.outcome()).isEqualTo("check_pod");
            assertThat(ask.info()).isEqualTo("sfu-b");
            assertThat(text(c, "SELECT count(*) FROM transport_attempts WHERE meeting_id = ?", s.meeting())).isEqualTo("0");
            Out stay = reserve(c, s, EPOCH, "k", "h", 0, "sfu-a", new String[]{"sfu-a", "sfu-b"}, NONE);
            assertThat(stay.outcome()).isEqualTo("reserved");
            assertThat(stay.pod()).isEqualTo("sfu-b");
            // sfu-b became unusable: the retry of that attempt is superseded; a new attempt moves to the fallback
            assertThat(reserve(c, s, EPOCH, "k", "h", 0, "sfu-a", new String[]{"sfu-a"}, new String[]{"sfu-b"}).outcome())
                    .isEqualTo("superseded");
            Out moved = reserve(c, s, EPOCH, "k2", "h", 1, "sfu-a", new String[]{"sfu-a"}, new String[]{"sfu-b"});
            assertThat(moved.outcome()).isEqualTo("reserved");
            assertThat(moved.pod()).isEqualTo("sfu-a");
            assertThat(moved.generation()).isEqualTo(2);
            assertThat(text(c, "SELECT sfu_pod FROM meetings WHERE meeting_id = ?", s.meeting())).isEqualTo("sfu-a");
            // no SFU at all
            Seat n = seat(c, null, "admitted");
            assertThat(reserve(c, n, EPOCH, "k", "h", 0, null, NONE, NONE).outcome()).isEqualTo("no_media_server");
        }
    }
}
