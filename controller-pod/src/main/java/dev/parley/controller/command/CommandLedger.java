package dev.parley.controller.command;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.auth.Caller;
import dev.parley.controller.command.store.CommandRecord;
import dev.parley.controller.command.store.CommandRepository;
import dev.parley.controller.control.ControlEvent;
import dev.parley.controller.control.ControlLog;
import dev.parley.controller.db.Db;
import dev.parley.controller.enforcement.AppliedLedger;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.meeting.MeetingRow;
import dev.parley.controller.meeting.MeetingService;
import jakarta.inject.Singleton;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The one ledger of commands: idempotent replay of a stored answer, the command record, reads
 * ({@code GET …/commands/{id}}) and {@code pending → applied}, which enforcement reports through
 * {@link AppliedLedger}.
 */
@Singleton
public class CommandLedger implements AppliedLedger {
    // a pooled factory: callers are virtual threads, whose per-thread buffer pools never get reused
    private static final ObjectMapper JSON = JsonMapper.builder(JsonBody.pooledFactory()).build();

    private final Db db;
    private final ControlLog log;
    private final CommandRepository repository;
    private final MeetingCommands meetings;

    CommandLedger(Db db, ControlLog log, CommandRepository repository, MeetingCommands meetings) {
        this.db = db;
        this.log = log;
        this.repository = repository;
        this.meetings = meetings;
    }

    /** The stored command's answer when this key was used before (a replay), or null; 409 for another body. */
    static CommandService.Committed replay(CommandRecord r, String hash) throws SQLException {
        if (r == null) {
            return null;
        }
        if (!hash.equals(r.requestHash())) {
            throw ApiException.conflict("idempotency_key_reused", "this Idempotency-Key was used with a different request");
        }
        try {
            ObjectNode stored = (ObjectNode) JSON.readTree(r.response());
            return new CommandService.Committed(r.commandId(), stored, List.of(), Map.of(), List.of(), false, false, true);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new SQLException(e);
        }
    }

    /** GET commands/{id}. */
    public ObjectNode get(Caller caller, UUID meetingId, UUID commandId) {
        return db.readSnapshot(c -> {
            MeetingRow m = MeetingRow.load(c, meetingId, false);
            MeetingService.requireTenant(m, caller);
            CommandRecord r = repository.findByMeetingIdAndCommandId(meetingId, commandId).orElseThrow(() ->
                    ApiException.notFound("command_not_found", "no such command"));
            try {
                ObjectNode out = (ObjectNode) JSON.readTree(r.response());
                out.put("type", r.commandType());
                out.put("state", r.state());
                out.put("media_enforcement", r.mediaEnforcement());
                out.put("created_at", r.createdAt().toString());
                if (r.appliedAt() != null) {
                    out.put("applied_at", r.appliedAt().toString());
                }
                return out;
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new SQLException(e);
            }
        });
    }

    /** Marks a pending command applied (fenced); returns the events to publish, empty if nothing changed. */
    @Override
    public List<ControlEvent> markApplied(UUID meetingId, long epoch, UUID commandId, boolean endsMeeting) {
        return db.tx(c -> {
            MeetingRow m = MeetingRow.load(c, meetingId, true);
            if (m.controllerEpoch() != epoch) {
                return List.<ControlEvent>of();
            }
            List<ControlEvent> events = new ArrayList<>();
            if (repository.markApplied(commandId, epoch) == 0) {
                return events; // already applied, or no longer ours: nothing to announce
            }
            ObjectNode ev = JsonBody.obj();
            ev.put("command_id", commandId.toString());
            ev.put("media_enforcement", "applied");
            events.add(log.append(c, meetingId, epoch, "command_applied", ev, null));
            if (endsMeeting) {
                meetings.finishEnd(c, meetingId, epoch, events);
            }
            return events;
        });
    }
}
