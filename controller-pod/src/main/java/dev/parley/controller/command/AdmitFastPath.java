package dev.parley.controller.command;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.auth.Caller;
import dev.parley.controller.control.ControlEvent;
import dev.parley.controller.db.Db;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.participant.ParticipantRow;
import dev.parley.controller.participant.ParticipantService;
import jakarta.inject.Singleton;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.List;
import java.util.UUID;

/**
 * The usual admit (a moderator admitting a waiting participant) as ONE call of the database function
 * {@code admit_participant} (migration V5), in autocommit: one round trip instead of four, the same rows written.
 * The answer and events are mapped by {@link CommandResults}, as on the general path.
 */
@Singleton
final class AdmitFastPath {
    /** {@code admit_participant}'s parameters, in {@link #admit}'s binding order. */
    private static final String ADMIT = "SELECT * FROM admit_participant(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    private final Db db;

    AdmitFastPath(Db db) {
        this.db = db;
    }

    /** The committed admit, or null when the function found anything else (it then wrote nothing). */
    CommandService.Committed admit(Caller caller, UUID meetingId, long epoch, String key, String hash, ObjectNode body) {
        UUID target;
        Long expected;
        try {
            target = JsonBody.uuid(body, "participant_id", true);
            expected = JsonBody.nonNegativeLong(body, "expected_participant_version", false);
        } catch (ApiException malformed) {
            return null; // the general path rejects it, in its order
        }
        UUID commandId = UUID.randomUUID();
        UUID[] eventIds = {UUID.randomUUID(), UUID.randomUUID()};
        return db.oneStatement(c -> {
            try (PreparedStatement ps = c.prepareStatement(ADMIT)) {
                ps.setObject(1, meetingId);
                ps.setLong(2, epoch);
                ps.setObject(3, caller.tenantId());
                ps.setObject(4, caller.principalId());
                ps.setString(5, key);
                ps.setString(6, hash);
                ps.setObject(7, target);
                if (expected == null) {
                    ps.setNull(8, java.sql.Types.BIGINT);
                } else {
                    ps.setLong(8, expected);
                }
                ps.setObject(9, commandId);
                ps.setArray(10, c.createArrayOf("uuid", eventIds));
                ps.setArray(11, c.createArrayOf("uuid", new UUID[]{UUID.randomUUID(), UUID.randomUUID()}));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (!"admitted".equals(rs.getString(1))) {
                        return null;
                    }
                    long seq = rs.getLong(2);
                    ParticipantRow p = ParticipantRow.read(rs, 2);
                    // the answer and events as the general path builds them (admit, then the command's own event)
                    ObjectNode answer = JsonBody.obj();
                    answer.put("participant_version", p.version());
                    CommandResults.complete(answer, commandId, false);
                    ObjectNode cmdEvent = CommandResults.committedEvent(commandId, CommandType.ADMIT, false, target);
                    List<ControlEvent> events = List.of(
                            new ControlEvent(meetingId, epoch, seq, eventIds[0], "participant_admitted",
                                    ParticipantService.participantJson(p), null),
                            new ControlEvent(meetingId, epoch, seq + 1, eventIds[1], "command_committed", cmdEvent, null));
                    return new CommandService.Committed(commandId, answer, events, new HashMap<>(), List.of(p), false,
                            false, false);
                }
            }
        });
    }
}
