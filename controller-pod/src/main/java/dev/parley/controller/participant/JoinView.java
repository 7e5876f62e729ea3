package dev.parley.controller.participant;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * What a join has to know before it inserts, read in ONE round trip (a join used to need four queries):
 * whether the principal is banned, whether an admitted host is present, and the principal's own rows
 * (for the Idempotency-Key replay and the one-active-session-per-device check). Runs under the meeting
 * row lock, so it cannot go stale before the insert.
 */
record JoinView(boolean banned, boolean hostPresent, List<ParticipantRow> own) {
    private static final String PREFIXED_COLS = prefixed("p");

    /** The join view's query; bind it with {@link #bind}. */
    static final String SQL = "SELECT b.banned, p.participant_id IS NOT NULL, " + PREFIXED_COLS + " FROM (SELECT EXISTS "
            + "(SELECT 1 FROM principal_bans WHERE meeting_id = ? AND principal_id = ?) AS banned) b "
            + "LEFT JOIN meeting_participants p ON p.meeting_id = ? AND (p.principal_id = ? "
            + "OR (p.role = 'host' AND p.admission_state = 'admitted'))";

    /** Binds {@link #SQL}'s parameters from {@code first}. */
    static void bind(PreparedStatement ps, int first, UUID meetingId, UUID principalId) throws SQLException {
        ps.setObject(first, meetingId);
        ps.setObject(first + 1, principalId);
        ps.setObject(first + 2, meetingId);
        ps.setObject(first + 3, principalId);
    }

    // the one-row left side keeps the ban flag even when no participant row matches
    static JoinView read(ResultSet rs, UUID principalId) throws SQLException {
        boolean banned = false;
        boolean host = false;
        List<ParticipantRow> own = new ArrayList<>();
        while (rs.next()) {
            banned = rs.getBoolean(1);
            if (!rs.getBoolean(2)) {
                continue;
            }
            ParticipantRow p = ParticipantRow.read(rs, 2);
            if ("host".equals(p.role()) && p.isAdmitted()) {
                host = true;
            }
            if (p.principalId().equals(principalId)) {
                own.add(p);
            }
        }
        return new JoinView(banned, host, own);
    }

    ParticipantRow byKey(String key) {
        for (ParticipantRow p : own) {
            if (key.equals(p.idempotencyKey())) {
                return p;
            }
        }
        return null;
    }

    private static String prefixed(String alias) {
        return ParticipantRow.COLS.replaceAll("(^|, )", "$1" + alias + ".");
    }
}
