package dev.parley.controller.command;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.command.store.MeetingWrites;
import dev.parley.controller.command.store.RecordingJobWrites;
import dev.parley.controller.control.ControlEvent;
import dev.parley.controller.control.ControlLog;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.outbox.Outbox;
import dev.parley.controller.participant.ParticipantRow;
import dev.parley.controller.participant.Seats;
import jakarta.inject.Singleton;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

/** Commands on the whole meeting: mute all, lock, end (and ending → ended once enforcement is done). */
@Singleton
final class MeetingCommands implements CommandHandler {
    private final ControlLog log;
    private final Outbox outbox;

    MeetingCommands(ControlLog log, Outbox outbox) {
        this.log = log;
        this.outbox = outbox;
    }

    @Override
    public void run(CommandType type, CommandContext x, ObjectNode answer) throws SQLException {
        switch (type) {
            case MUTE_ALL -> muteAll(x);
            case LOCK_MEETING -> lock(x);
            case END_MEETING -> endMeeting(x);
            default -> throw new IllegalStateException(type.wire());
        }
    }

    private void muteAll(CommandContext x) throws SQLException {
        x.requireOpen();
        Boolean allowSelf = JsonBody.bool(x.body, "allow_self_unmute", true);
        if (!MeetingWrites.muteAll(x.c, x.meetingId(), x.epoch, allowSelf)) {
            throw ApiException.unavailable("owner_changed", "controller epoch superseded; retry");
        }
        if (!allowSelf) {
            // the server permission goes away for everyone but moderators: enforced at the SFUs
            for (ParticipantRow p : ParticipantRow.all(x.c, x.meetingId(),
                    "AND admission_state = 'admitted' AND role = 'attendee' AND audio_publish_allowed")) {
                x.update(p, "audio_publish_allowed = false, unmute_requested = false");
            }
        }
        ObjectNode ev = JsonBody.obj();
        ev.put("allow_self_unmute", allowSelf);
        // clients mute their microphones; with allow_self_unmute the permission stays and users may unmute
        x.defer("mute_all", ev, null, null);
        for (UUID pid : List.copyOf(x.targets.keySet())) {
            x.emitParticipant("permission_changed", pid, null);
        }
    }

    private void lock(CommandContext x) throws SQLException {
        x.requireOpen();
        Boolean locked = JsonBody.bool(x.body, "locked", false);
        boolean l = locked == null || locked;
        MeetingWrites.lock(x.c, x.meetingId(), x.epoch, l);
        ObjectNode ev = JsonBody.obj();
        ev.put("locked", l);
        x.defer("meeting_locked", ev, null, null);
    }

    /** ending now; ended once media enforcement is done (or at once when nobody had media). */
    private void endMeeting(CommandContext x) throws SQLException {
        x.requireHost();
        if (x.m.isClosing()) {
            return;
        }
        MeetingWrites.markEnding(x.c, x.meetingId(), x.epoch);
        int released = 0;
        for (ParticipantRow p : ParticipantRow.all(x.c, x.meetingId(), "AND admission_state IN ('waiting','admitted')")) {
            x.update(p, "admission_state = 'left', audio_publish_allowed = false, video_publish_allowed = false, "
                    + "screen_publish_allowed = false, role = CASE WHEN p.role = 'host' THEN 'attendee' ELSE p.role END");
            released++;
        }
        Seats.release(x.c, x.meetingId(), x.m.tenantId(), released);
        RecordingJobWrites.requestStopAll(x.c, x.meetingId());
        x.defer("meeting_ending", JsonBody.obj(), null, null);
        outbox.add(x.c, x.meetingId(), x.m.version() + 1, "meeting.ending", x.meetingId().toString(), JsonBody.obj());
    }

    /** ending → ended (after enforcement), its event and outbox row added to {@code events}. Idempotent. */
    void finishEnd(Connection c, UUID meetingId, long epoch, List<ControlEvent> events) throws SQLException {
        long v = MeetingWrites.markEnded(c, meetingId, epoch);
        if (v >= 0) {
            events.add(log.append(c, meetingId, epoch, "meeting_ended", JsonBody.obj(), null));
            outbox.add(c, meetingId, v, "meeting.ended", meetingId.toString(), JsonBody.obj());
        }
    }
}
