package dev.parley.controller.command;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.auth.Caller;
import dev.parley.controller.command.store.CommandRecord;
import dev.parley.controller.command.store.CommandStore;
import dev.parley.controller.control.ControlEvent;
import dev.parley.controller.control.ControlLog;
import dev.parley.controller.db.Db;
import dev.parley.controller.db.Pipeline;
import dev.parley.controller.enforcement.CommittedChange;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.meeting.MeetingRow;
import dev.parley.controller.meeting.MeetingService;
import dev.parley.controller.outbox.Outbox;
import dev.parley.controller.participant.ParticipantRow;
import jakarta.inject.Singleton;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Desired-state commands of a meeting (never toggles). Each runs in one transaction on the owner: lock
 * the meeting row (fenced by epoch), check the caller's role, check the Idempotency-Key, apply fenced
 * updates, append control events and outbox rows, store the answer for replays. This class is the command's
 * life from request to commit; the handlers ({@link ParticipantCommands}, {@link MeetingCommands},
 * {@link RecordingCommands}) do the command's own writes and the {@link CommandLedger} keeps its record.
 */
@Singleton
public class CommandService {
    public static final Set<String> TYPES = CommandType.wireNames();

    private final Db db;
    private final ControlLog log;
    private final CommandLedger ledger;
    private final AdmitFastPath admitFastPath;
    private final ParticipantCommands participants;
    private final MeetingCommands meetings;
    private final RecordingCommands recordings;
    private final LargeMeetingCommands largeMeetings;

    CommandService(Db db, ControlLog log, CommandLedger ledger, AdmitFastPath admitFastPath,
                   ParticipantCommands participants, MeetingCommands meetings, RecordingCommands recordings,
                   LargeMeetingCommands largeMeetings) {
        this.db = db;
        this.log = log;
        this.ledger = ledger;
        this.admitFastPath = admitFastPath;
        this.participants = participants;
        this.meetings = meetings;
        this.recordings = recordings;
        this.largeMeetings = largeMeetings;
    }

    /**
     * What a committed command means for media: participants whose grants changed (new versions) and
     * whether enforcement must be tracked until applied.
     */
    public record Committed(UUID commandId, ObjectNode answer, List<ControlEvent> events, Map<UUID, Long> grantTargets,
                            List<ParticipantRow> changed, boolean pending, boolean endsMeeting, boolean replay)
            implements CommittedChange {
    }

    public Committed execute(Caller caller, UUID meetingId, long epoch, String key, ObjectNode body) {
        CommandType type = CommandType.parse(JsonBody.text(body, "type", true, 64));
        String hash = JsonBody.hash(body);
        UUID prefetch = type.targeted() ? quietUuid(body.get("participant_id")) : null;
        if (type == CommandType.ADMIT && prefetch != null) {
            Committed admitted = admitFastPath.admit(caller, meetingId, epoch, key, hash, body);
            if (admitted != null) {
                return admitted;
            }
        }
        return db.tx(c -> {
            // meeting lock, then this key's stored command, the caller's active rows and (for commands on one
            // participant) the locked target: statements in this order as before, sent in ONE round trip
            MeetingRow m;
            CommandRecord stored;
            List<ParticipantRow> own = new ArrayList<>();
            ParticipantRow prefetched = null;
            List<String> sql = new ArrayList<>(List.of(MeetingRow.SELECT_FOR_UPDATE, CommandStore.STORED,
                    ParticipantRow.SELECT_ACTIVE_OF));
            if (prefetch != null) {
                sql.add(ParticipantRow.SELECT_ONE_FOR_UPDATE);
            }
            try (Pipeline q = Pipeline.prepare(c, sql.toArray(String[]::new))) {
                PreparedStatement ps = q.params();
                ps.setObject(1, meetingId);
                ps.setObject(2, meetingId);
                ps.setObject(3, caller.principalId());
                ps.setString(4, key);
                ps.setObject(5, meetingId);
                ps.setObject(6, caller.principalId());
                if (prefetch != null) {
                    ps.setObject(7, meetingId);
                    ps.setObject(8, prefetch);
                }
                q.execute();
                m = MeetingService.requireOwner(MeetingRow.read(q.next()), meetingId, epoch, caller);
                try (ResultSet rs = q.next()) {
                    stored = CommandStore.readStored(rs, meetingId, caller.principalId(), key, epoch);
                }
                try (ResultSet rs = q.next()) {
                    while (rs.next()) {
                        own.add(ParticipantRow.read(rs));
                    }
                }
                if (prefetch != null) {
                    try (ResultSet rs = q.next()) {
                        prefetched = rs.next() ? ParticipantRow.read(rs) : null;
                    }
                }
            }
            Committed replay = CommandLedger.replay(stored, hash);
            if (replay != null) {
                return replay;
            }
            UUID commandId = UUID.randomUUID();
            ParticipantRow actor = type.selfService() ? admitted(own) : moderator(own);
            CommandContext x = new CommandContext(c, m, epoch, actor, body, commandId, prefetch, prefetched);
            ObjectNode answer = JsonBody.obj();
            handler(type).run(type, x, answer);
            boolean endsMeeting = type == CommandType.END_MEETING;
            boolean pending = false;
            for (UUID pid : x.targets.keySet()) {
                if (x.current(pid).sfuPod() != null) {
                    pending = true;
                }
            }
            CommandResults.complete(answer, commandId, pending);
            if (endsMeeting && !pending) {
                x.flush(log);
                meetings.finishEnd(c, meetingId, epoch, x.events);
            }
            UUID target = body.hasNonNull("participant_id") ? JsonBody.uuid(body, "participant_id", false) : null;
            ObjectNode cmdEvent = CommandResults.committedEvent(commandId, type, pending, target);
            // webhook payloads are nested (no clash): they keep the old "type" field for existing consumers
            ObjectNode webhook = cmdEvent.deepCopy();
            webhook.put("type", type.wire());
            x.defer("command_committed", cmdEvent, null,
                    new Outbox.Event(Math.max(1, m.version()), "command." + type.wire(), commandId.toString(), webhook));
            // this command's events (one statement) and its record, in one round trip
            x.events.addAll(log.appendAll(c, meetingId, epoch, x.deferred, new CommandStore.Insert(commandId, meetingId,
                    caller.principalId(), key, hash, type.wire(), target, CommandResults.enforcement(pending),
                    answer.toString(), epoch)));
            x.deferred.clear();
            return new Committed(commandId, answer, x.events, x.targets, List.copyOf(x.updated.values()), pending,
                    endsMeeting, false);
        });
    }

    private CommandHandler handler(CommandType type) {
        return switch (type.area()) {
            case PARTICIPANT -> participants;
            case MEETING -> meetings;
            case RECORDING -> recordings;
            case LARGE_MEETING -> largeMeetings;
        };
    }

    /** ending → ended (after enforcement). Idempotent. */
    public void finishEnd(Connection c, UUID meetingId, long epoch, List<ControlEvent> events) throws SQLException {
        meetings.finishEnd(c, meetingId, epoch, events);
    }

    /** GET commands/{id}. */
    public ObjectNode get(Caller caller, UUID meetingId, UUID commandId) {
        return ledger.get(caller, meetingId, commandId);
    }

    /** Marks a pending command applied (fenced); returns the events to publish, empty if nothing changed. */
    public List<ControlEvent> markApplied(UUID meetingId, long epoch, UUID commandId, boolean endsMeeting) {
        return ledger.markApplied(meetingId, epoch, commandId, endsMeeting);
    }

    private static ParticipantRow moderator(List<ParticipantRow> own) {
        for (ParticipantRow p : own) {
            if (p.isModerator()) {
                return p;
            }
        }
        throw ApiException.forbidden("not_a_moderator", "only the host or a cohost may run meeting commands");
    }

    /** The caller's admitted row, for the commands a participant runs for itself. */
    private static ParticipantRow admitted(List<ParticipantRow> own) {
        for (ParticipantRow p : own) {
            if (p.isAdmitted()) {
                return p;
            }
        }
        throw ApiException.forbidden("not_admitted", "only admitted participants may run this command");
    }

    /** A well-formed participant_id to prefetch, or null (a malformed one is rejected later, in order). */
    private static UUID quietUuid(com.fasterxml.jackson.databind.JsonNode n) {
        if (n == null || !n.isTextual()) {
            return null;
        }
        try {
            return UUID.fromString(n.asText());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
