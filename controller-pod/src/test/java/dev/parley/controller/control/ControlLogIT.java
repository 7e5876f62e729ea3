package dev.parley.controller.control;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.outbox.Outbox;
import dev.parley.controller.testing.TestPostgres;
import dev.parley.testsupport.postgres.PostgresExtension;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ControlLog#appendAll} on real PostgreSQL with the real schema: a command's events go in with ONE
 * statement, gap-free and in the order given, with their outbox rows in the same order, fenced by the epoch
 * and atomic with the rest of the transaction.
 */
class ControlLogIT {
    private static final long EPOCH = 7;
    private static String url;
    private final ControlLog log = new ControlLog();

    @BeforeAll
    static void db() throws Exception {
        url = TestPostgres.freshDatabaseUrl();
        Flyway.configure().dataSource(url, PostgresExtension.user(), PostgresExtension.password())
                .locations("classpath:db/migration").load().migrate();
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(url, PostgresExtension.user(), PostgresExtension.password());
    }

    private static UUID meeting(Connection c) throws SQLException {
        UUID id = UUID.randomUUID();
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO meetings (meeting_id, tenant_id, organizer_id, "
                + "idempotency_key, creation_request, title, encryption_mode, waiting_room_enabled, controller_epoch) "
                + "VALUES (?, ?, ?, 'k', '{}', 't', 'transport', true, ?)")) {
            ps.setObject(1, id);
            ps.setObject(2, UUID.randomUUID());
            ps.setObject(3, UUID.randomUUID());
            ps.setLong(4, EPOCH);
            ps.executeUpdate();
        }
        return id;
    }

    private static ObjectNode payload(int n) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("n", n);
        return o;
    }

    /** Entry n: every other one with an outbox row; every third one for one participant only. */
    private static List<ControlLog.Entry> entries(int from, int count, UUID audience) {
        List<ControlLog.Entry> out = new ArrayList<>();
        for (int n = from; n < from + count; n++) {
            Outbox.Event o = n % 2 == 0 ? new Outbox.Event(n, "test.e" + n, "key-" + n, payload(n)) : null;
            out.add(new ControlLog.Entry("e" + n, payload(n), n % 3 == 0 ? audience : null, o));
        }
        return out;
    }

    private static long controlSeq(Connection c, UUID m) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT control_seq FROM meetings WHERE meeting_id = ?")) {
            ps.setObject(1, m);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static List<String> column(Connection c, String sql, UUID m) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setObject(1, m);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    @Test
    void eventsAreGapFreeInOrderWithTheirOutboxRowsInTheSameOrder() throws Exception {
        UUID audience = UUID.randomUUID();
        try (Connection c = connect()) {
            UUID m = meeting(c);
            c.setAutoCommit(false);
            List<ControlEvent> first = log.appendAll(c, m, EPOCH, entries(1, 5, audience));
            List<ControlEvent> second = log.appendAll(c, m, EPOCH, entries(6, 1, audience));
            List<ControlEvent> third = log.appendAll(c, m, EPOCH, entries(7, 4, audience));
            c.commit();

            List<ControlEvent> all = new ArrayList<>(first);
            all.addAll(second);
            all.addAll(third);
            assertThat(all).extracting(ControlEvent::seq).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
            assertThat(all).extracting(ControlEvent::type)
                    .containsExactly("e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9", "e10");
            assertThat(controlSeq(c, m)).isEqualTo(10);
            // what the database holds matches what appendAll answered, event by event
            assertThat(column(c, "SELECT event_type || ':' || seq || ':' || (payload->>'n') || ':' "
                    + "|| coalesce(audience_participant_id::text, '-') FROM control_events WHERE meeting_id = ? ORDER BY seq", m))
                    .containsExactlyElementsOf(all.stream().map(e -> e.type() + ":" + e.seq() + ":" + e.payload().get("n")
                            + ":" + (e.audience() == null ? "-" : e.audience())).toList());
            assertThat(column(c, "SELECT event_id::text FROM control_events WHERE meeting_id = ? ORDER BY seq", m))
                    .containsExactlyElementsOf(all.stream().map(e -> e.eventId().toString()).toList());
            // outbox rows: only the entries that had one, in append order (the relay publishes by position)
            assertThat(column(c, "SELECT event_type || ':' || aggregate_version || ':' || idempotency_key FROM outbox_events "
                    + "WHERE meeting_id = ? ORDER BY position", m))
                    .containsExactly("test.e2:2:key-2", "test.e4:4:key-4", "test.e6:6:key-6", "test.e8:8:key-8",
                            "test.e10:10:key-10");
        }
    }

    @Test
    void aStaleEpochWritesNothing() throws Exception {
        try (Connection c = connect()) {
            UUID m = meeting(c);
            c.setAutoCommit(false);
            log.appendAll(c, m, EPOCH, entries(1, 2, null));
            c.commit();
            assertThatThrownBy(() -> log.appendAll(c, m, EPOCH - 1, entries(3, 4, null)))
                    .isInstanceOf(ApiException.class).hasMessageContaining("epoch");
            c.commit();
            assertThat(controlSeq(c, m)).isEqualTo(2);
            assertThat(column(c, "SELECT event_type FROM control_events WHERE meeting_id = ?", m)).hasSize(2);
            assertThat(column(c, "SELECT event_type FROM outbox_events WHERE meeting_id = ?", m)).containsExactly("test.e2");
        }
    }

    @Test
    void aFailureLaterInTheCommandsTransactionLeavesNoEventsNoOutboxRowsAndNoSequence() throws Exception {
        try (Connection c = connect()) {
            UUID m = meeting(c);
            c.setAutoCommit(false);
            log.appendAll(c, m, EPOCH, entries(1, 4, null));
            // the command record insert fails after the events were appended (here: a NOT NULL violation)
            assertThatThrownBy(() -> {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO commands (command_id) VALUES (?)")) {
                    ps.setObject(1, UUID.randomUUID());
                    ps.executeUpdate();
                }
            }).isInstanceOf(SQLException.class);
            c.rollback();
            assertThat(controlSeq(c, m)).isZero();
            assertThat(column(c, "SELECT event_type FROM control_events WHERE meeting_id = ?", m)).isEmpty();
            assertThat(column(c, "SELECT event_type FROM outbox_events WHERE meeting_id = ?", m)).isEmpty();
            // and the next command starts right at 1
            assertThat(log.appendAll(c, m, EPOCH, entries(1, 1, null))).extracting(ControlEvent::seq).containsExactly(1L);
            c.commit();
        }
    }

    @Test
    void anOutboxRowAlreadyWrittenIsSkippedWithoutLosingTheOthers() throws Exception {
        try (Connection c = connect()) {
            UUID m = meeting(c);
            c.setAutoCommit(false);
            log.appendAll(c, m, EPOCH, entries(2, 1, null)); // writes outbox key-2
            List<ControlEvent> again = log.appendAll(c, m, EPOCH, entries(2, 3, null)); // key-2 again, key-4 new
            c.commit();
            assertThat(again).extracting(ControlEvent::seq).containsExactly(2L, 3L, 4L);
            assertThat(column(c, "SELECT idempotency_key FROM outbox_events WHERE meeting_id = ? ORDER BY position", m))
                    .containsExactly("key-2", "key-4");
        }
    }

    @Test
    void retentionIsTrimmedWhenABatchCrossesAMultipleOf200() throws Exception {
        try (Connection c = connect()) {
            UUID m = meeting(c);
            c.setAutoCommit(false);
            // an event of an older epoch: removed by the first trim
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO control_events (meeting_id, controller_epoch, seq, "
                    + "event_id, event_type, payload) VALUES (?, ?, 1, ?, 'old', '{}')")) {
                ps.setObject(1, m);
                ps.setLong(2, EPOCH - 1);
                ps.setObject(3, UUID.randomUUID());
                ps.executeUpdate();
            }
            for (int k = 0; k < 66; k++) {
                log.appendAll(c, m, EPOCH, entries(1, 3, null)); // seq 1..198: no multiple of 200 passed
            }
            assertThat(column(c, "SELECT event_type FROM control_events WHERE meeting_id = ? AND controller_epoch < 7", m))
                    .containsExactly("old");
            log.appendAll(c, m, EPOCH, entries(1, 3, null)); // 199..201 crosses 200
            c.commit();
            assertThat(column(c, "SELECT event_type FROM control_events WHERE meeting_id = ? AND controller_epoch < 7", m))
                    .isEmpty();
            assertThat(controlSeq(c, m)).isEqualTo(201);
        }
    }

    /** A command record with this key, written as the append's rider (as CommandService does). */
    private static ControlLog.Rider commandRecord(UUID meeting, UUID principal, String key) {
        return new ControlLog.Rider() {
            @Override
            public String sql() {
                return "INSERT INTO commands (command_id, meeting_id, principal_id, idempotency_key, request_hash, "
                        + "command_type, state, media_enforcement, response, controller_epoch) "
                        + "VALUES (?, ?, ?, ?, 'h', 'admit', 'committed', 'not_required', '{}', ?)";
            }

            @Override
            public void bind(PreparedStatement ps, int i) throws SQLException {
                ps.setObject(i, UUID.randomUUID());
                ps.setObject(i + 1, meeting);
                ps.setObject(i + 2, principal);
                ps.setString(i + 3, key);
                ps.setLong(i + 4, EPOCH);
            }
        };
    }

    @Test
    void theRiderIsWrittenWithTheEventsAndItsFailureTakesThemAllBack() throws Exception {
        UUID principal = UUID.randomUUID();
        try (Connection c = connect()) {
            UUID m = meeting(c);
            c.setAutoCommit(false);
            assertThat(log.appendAll(c, m, EPOCH, entries(1, 2, null), commandRecord(m, principal, "k1")))
                    .extracting(ControlEvent::seq).containsExactly(1L, 2L);
            c.commit();
            assertThat(column(c, "SELECT idempotency_key FROM commands WHERE meeting_id = ?", m)).containsExactly("k1");

            // the same key again: the command record fails after the events went in, in the same round trip
            assertThatThrownBy(() -> log.appendAll(c, m, EPOCH, entries(3, 4, null), commandRecord(m, principal, "k1")))
                    .isInstanceOf(SQLException.class).hasMessageContaining("duplicate key");
            c.rollback();
            assertThat(controlSeq(c, m)).isEqualTo(2);
            assertThat(column(c, "SELECT event_type FROM control_events WHERE meeting_id = ? ORDER BY seq", m))
                    .containsExactly("e1", "e2");
            assertThat(column(c, "SELECT idempotency_key FROM outbox_events WHERE meeting_id = ?", m))
                    .containsExactly("key-2");

            // a stale epoch: neither the events nor the rider are kept
            assertThatThrownBy(() -> log.appendAll(c, m, EPOCH - 1, entries(3, 1, null), commandRecord(m, principal, "k2")))
                    .isInstanceOf(ApiException.class);
            c.rollback();
            assertThat(column(c, "SELECT idempotency_key FROM commands WHERE meeting_id = ?", m)).containsExactly("k1");
            assertThat(controlSeq(c, m)).isEqualTo(2);
        }
    }
}
