package dev.parley.controller.testing;

import dev.parley.testsupport.postgres.PostgresExtension;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * For ITs that call the controller's database functions directly: registered per class
 * ({@code @RegisterExtension static final FunctionDb db = new FunctionDb();}), it makes a fresh database on the shared
 * real PostgreSQL before the class's tests and migrates it with the production Flyway scripts. Also the rows those
 * tests seed and one-value queries.
 */
public final class FunctionDb implements BeforeAllCallback {
    private volatile String url;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        String fresh = TestPostgres.freshDatabaseUrl();
        Flyway.configure().dataSource(fresh, PostgresExtension.user(), PostgresExtension.password())
                .locations("classpath:db/migration").load().migrate();
        url = fresh;
    }

    public Connection connect() throws SQLException {
        if (url == null) {
            throw new IllegalStateException("FunctionDb is not registered as an extension of this test class");
        }
        return DriverManager.getConnection(url, PostgresExtension.user(), PostgresExtension.password());
    }

    /** The first column of the first row of {@code sql} (one {@code ?}, bound to {@code id}), as a number. */
    public static long count(Connection c, String sql, UUID id) throws SQLException {
        return first(c, sql, id, rs -> rs.getLong(1));
    }

    /** The first column of the first row of {@code sql} (one {@code ?}, bound to {@code id}), as text. */
    public static String text(Connection c, String sql, UUID id) throws SQLException {
        return first(c, sql, id, rs -> rs.getString(1));
    }

    private interface Column<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private static <T> T first(Connection c, String sql, UUID id, Column<T> column) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setObject(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return column.read(rs);
            }
        }
    }

    /**
     * A {@code meetings} row: random ids, idempotency key 'k', title 't', transport encryption, scheduled. A
     * {@code null} max participants, SFU pod or control sequence is left out of the insert (the schema default).
     */
    public record MeetingRow(UUID id, UUID tenant, UUID organizer, boolean waitingRoom, long epoch,
                             Integer maxParticipants, String sfuPod, Long controlSeq) {
        /** With the waiting room on, owned by controller {@code epoch}. */
        public static MeetingRow at(long epoch) {
            return new MeetingRow(UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID(), true, epoch, null, null, null);
        }

        public MeetingRow withTenant(UUID t) {
            return new MeetingRow(id, t, organizer, waitingRoom, epoch, maxParticipants, sfuPod, controlSeq);
        }

        public MeetingRow withWaitingRoom(boolean on) {
            return new MeetingRow(id, tenant, organizer, on, epoch, maxParticipants, sfuPod, controlSeq);
        }

        public MeetingRow withMaxParticipants(int max) {
            return new MeetingRow(id, tenant, organizer, waitingRoom, epoch, max, sfuPod, controlSeq);
        }

        public MeetingRow withSfuPod(String pod) {
            return new MeetingRow(id, tenant, organizer, waitingRoom, epoch, maxParticipants, pod, controlSeq);
        }

        public MeetingRow withControlSeq(long seq) {
            return new MeetingRow(id, tenant, organizer, waitingRoom, epoch, maxParticipants, sfuPod, seq);
        }

        /** Inserts this row; returns it. */
        public MeetingRow insert(Connection c) throws SQLException {
            StringBuilder columns = new StringBuilder("meeting_id, tenant_id, organizer_id, idempotency_key, "
                    + "creation_request, title, encryption_mode, waiting_room_enabled, controller_epoch");
            StringBuilder values = new StringBuilder("?, ?, ?, 'k', '{}', 't', 'transport', ?, ?");
            List<Object> args = new ArrayList<>(List.of(id, tenant, organizer, waitingRoom, epoch));
            optional(columns, values, args, "max_participants", maxParticipants);
            optional(columns, values, args, "sfu_pod", sfuPod);
            optional(columns, values, args, "control_seq", controlSeq);
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO meetings (" + columns + ") VALUES (" + values + ")")) {
                for (int i = 0; i < args.size(); i++) {
                    ps.setObject(i + 1, args.get(i));
                }
                ps.executeUpdate();
            }
            return this;
        }

        private static void optional(StringBuilder columns, StringBuilder values, List<Object> args, String column,
                                     Object value) {
            if (value != null) {
                columns.append(", ").append(column);
                values.append(", ?");
                args.add(value);
            }
        }
    }

    /**
     * A {@code meeting_participants} row: an admitted attendee whose idempotency key is its participant id, with a
     * random client instance, display name 'n' and an empty join request.
     */
    public record ParticipantRow(UUID meeting, UUID id, UUID principal, String key, String role, String state) {
        public static ParticipantRow of(UUID meeting, UUID id, UUID principal) {
            return new ParticipantRow(meeting, id, principal, id.toString(), "attendee", "admitted");
        }

        public ParticipantRow withKey(String k) {
            return new ParticipantRow(meeting, id, principal, k, role, state);
        }

        public ParticipantRow withRole(String r) {
            return new ParticipantRow(meeting, id, principal, key, r, state);
        }

        public ParticipantRow withState(String s) {
            return new ParticipantRow(meeting, id, principal, key, role, s);
        }

        public void insert(Connection c) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO meeting_participants (meeting_id, participant_id, "
                    + "principal_id, client_instance_id, idempotency_key, role, admission_state, display_name, join_request) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, 'n', '{}')")) {
                ps.setObject(1, meeting);
                ps.setObject(2, id);
                ps.setObject(3, principal);
                ps.setObject(4, UUID.randomUUID());
                ps.setString(5, key);
                ps.setString(6, role);
                ps.setString(7, state);
                ps.executeUpdate();
            }
        }
    }
}
