package dev.parley.controller.command;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.control.ControlEvent;
import dev.parley.controller.control.ControlLog;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.meeting.MeetingRow;
import dev.parley.controller.outbox.Outbox;
import dev.parley.controller.participant.ParticipantRow;
import dev.parley.controller.participant.ParticipantService;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * One command's transaction as its handler sees it: the locked meeting, the acting moderator, the body, and what
 * the command did so far (rows written, participant versions to enforce, events to append).
 */
final class CommandContext {
    final Connection c;
    final MeetingRow m;
    final long epoch;
    final ParticipantRow actor;
    final ObjectNode body;
    final UUID commandId;
    /** Events already appended (flushed). */
    final List<ControlEvent> events = new ArrayList<>();
    /** Participant → version every SFU must enforce before the command is applied. */
    final Map<UUID, Long> targets = new HashMap<>();
    /** Rows as this transaction last wrote them. */
    final Map<UUID, ParticipantRow> updated = new HashMap<>();
    /** Events to append with the command's own, in ONE statement. */
    final List<ControlLog.Entry> deferred = new ArrayList<>();
    private final UUID prefetchedId;
    private final ParticipantRow prefetched;

    CommandContext(Connection c, MeetingRow m, long epoch, ParticipantRow actor, ObjectNode body, UUID commandId,
                   UUID prefetchedId, ParticipantRow prefetched) {
        this.c = c;
        this.m = m;
        this.epoch = epoch;
        this.actor = actor;
        this.body = body;
        this.commandId = commandId;
        this.prefetchedId = prefetchedId;
        this.prefetched = prefetched;
    }

    UUID meetingId() {
        return m.meetingId();
    }

    /** Appends the events deferred so far (one round trip for all of them). */
    void flush(ControlLog log) throws SQLException {
        events.addAll(log.appendAll(c, m.meetingId(), epoch, deferred));
        deferred.clear();
    }

    void requireHost() {
        if (!"host".equals(actor.role())) {
            throw ApiException.forbidden("not_host", "only the host may run this command");
        }
    }

    void requireOpen() {
        if (m.isClosing()) {
            throw ApiException.conflict("meeting_ended", "the meeting is " + m.status());
        }
    }

    /** The target participant, checked against expected_participant_version when given. */
    ParticipantRow target() throws SQLException {
        UUID pid = JsonBody.uuid(body, "participant_id", true);
        Long expected = JsonBody.nonNegativeLong(body, "expected_participant_version", false);
        ParticipantRow p;
        if (pid.equals(prefetchedId)) {
            if (prefetched == null) {
                throw ApiException.notFound("participant_not_found", "no such participant in this meeting");
            }
            p = prefetched; // read (and locked) right after the meeting lock, in the same round trip
        } else {
            p = ParticipantRow.require(c, m.meetingId(), pid, true);
        }
        if (expected != null && expected != p.version()) {
            throw ApiException.conflict("version_conflict", "participant version is " + p.version())
                    .with("current_version", p.version());
        }
        if ("host".equals(p.role()) && !"host".equals(actor.role()) && !p.participantId().equals(actor.participantId())) {
            throw ApiException.forbidden("cannot_target_host", "a cohost cannot act on the host");
        }
        return p;
    }

    /** A fenced update of the participant; records the new version as one to enforce. */
    long update(ParticipantRow p, String set, Object... params) throws SQLException {
        ParticipantRow now = ParticipantRow.fencedUpdateRow(c, m.meetingId(), p.participantId(), p.version(), epoch,
                set, params);
        targets.put(p.participantId(), now.version());
        updated.put(p.participantId(), now);
        return now.version();
    }

    /** The row as this transaction last wrote it (no re-read), or as the database has it now. */
    ParticipantRow current(UUID pid) throws SQLException {
        ParticipantRow p = updated.get(pid);
        return p != null ? p : ParticipantRow.require(c, m.meetingId(), pid, false);
    }

    /** Defers a participant event (and its outbox row) carrying the participant as it is now. */
    void emitParticipant(String type, UUID pid, ObjectNode extra) throws SQLException {
        ParticipantRow now = current(pid);
        ObjectNode ev = ParticipantService.participantJson(now);
        if (extra != null) {
            ev.setAll(extra);
        }
        deferred.add(new ControlLog.Entry(type, ev, null,
                new Outbox.Event(now.version(), "participant." + type, pid + ":" + now.version(), ev)));
    }

    /** Defers an event (with its outbox row, or null). */
    void defer(String type, ObjectNode payload, UUID audience, Outbox.Event outbox) {
        deferred.add(new ControlLog.Entry(type, payload, audience, outbox));
    }
}
