package dev.parley.controller.command;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.hand.HandQueue;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.meeting.LargeMeetingPolicy;
import dev.parley.controller.participant.ParticipantRow;
import jakarta.inject.Singleton;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

/**
 * The large-meeting commands (docs/api.md "Large meetings"): the meeting's policy, who may speak, and the raise-hand
 * queue. What an attendee may publish is its grant, so the SFUs enforce every change here like any permission.
 */
@Singleton
final class LargeMeetingCommands implements CommandHandler {
    @Override
    public void run(CommandType type, CommandContext x, ObjectNode answer) throws SQLException {
        switch (type) {
            case SET_LARGE_MEETING_POLICY -> setPolicy(x, answer);
            case ALLOW_SPEAK -> allowSpeak(x, answer);
            case RAISE_HAND -> raiseHand(x, answer);
            case LOWER_HAND -> lowerHand(x, answer);
            default -> throw new IllegalStateException(type.wire());
        }
    }

    /**
     * Sets {@code large_meeting_size} and/or {@code unmute_policy}. Turning {@code hosts_and_presenters} on takes
     * audio and video away from every attendee not allowed to speak; turning it off gives them back what an admitted
     * attendee gets (audio per mute_all, video), so the SFUs follow the policy either way.
     */
    private void setPolicy(CommandContext x, ObjectNode answer) throws SQLException {
        x.requireOpen();
        LargeMeetingPolicy before = LargeMeetingPolicy.of(x.c, x.meetingId());
        LargeMeetingPolicy after = LargeMeetingPolicy.change(x.body, before);
        after.writeTo(answer);
        if (after.equals(before)) {
            return; // desired state holds
        }
        after.store(x.c, x.meetingId(), x.epoch);
        if (before.restrictsAttendees() != after.restrictsAttendees()) {
            boolean audio = !after.restrictsAttendees() && (!x.m.muteAll() || x.m.allowSelfUnmute());
            boolean video = !after.restrictsAttendees();
            for (ParticipantRow p : ParticipantRow.all(x.c, x.meetingId(),
                    "AND admission_state = 'admitted' AND role = 'attendee' AND NOT speak_allowed")) {
                if (p.audio() != audio || p.video() != video) {
                    x.update(p, "audio_publish_allowed = ?, video_publish_allowed = ?, unmute_requested = false",
                            audio, video);
                }
            }
        }
        ObjectNode ev = JsonBody.obj();
        after.writeTo(ev);
        x.defer("meeting_policy_changed", ev, null, null);
        for (UUID pid : List.copyOf(x.targets.keySet())) {
            x.emitParticipant("permission_changed", pid, null);
        }
    }

    /**
     * {@code allowed} true (default): the participant may publish audio and video (a presenter) and its raised hand
     * is lowered; false: no longer — under {@code hosts_and_presenters} an attendee loses audio and video again.
     * The user's microphone is never turned on by this: the client tells the user (private {@code speak_allowed}).
     */
    private void allowSpeak(CommandContext x, ObjectNode answer) throws SQLException {
        x.requireOpen();
        ParticipantRow p = x.target();
        if (!p.isAdmitted()) {
            throw ApiException.conflict("invalid_state", "participant is " + p.admissionState());
        }
        Boolean allowed = JsonBody.bool(x.body, "allowed", false);
        boolean allow = allowed == null || allowed;
        boolean was = speakAllowed(x, p.participantId());
        long v = p.version();
        if (allow && (!was || !p.audio() || !p.video())) {
            v = x.update(p, "speak_allowed = true, audio_publish_allowed = true, video_publish_allowed = true");
        } else if (!allow) {
            boolean restricted = "attendee".equals(p.role())
                    && LargeMeetingPolicy.of(x.c, x.meetingId()).restrictsAttendees();
            if (restricted && (was || p.audio() || p.video())) {
                v = x.update(p, "speak_allowed = false, audio_publish_allowed = false, video_publish_allowed = false, "
                        + "unmute_requested = false");
            } else if (was) {
                v = x.update(p, "speak_allowed = false");
            }
        }
        answer.put("participant_version", v);
        if (allow && HandQueue.lower(x.c, x.meetingId(), p.participantId(), x.epoch)) {
            x.defer("hand_lowered", handLowered(p.participantId(), "allowed_to_speak"), null, null);
        }
        if (v != p.version()) {
            ObjectNode ev = JsonBody.obj();
            ev.put("participant_id", p.participantId().toString());
            ev.put("allowed", allow);
            ev.put("participant_version", v);
            x.defer("speak_allowed", ev, p.participantId(), null);
            x.emitParticipant("permission_changed", p.participantId(), null);
        }
    }

    /** Raises the caller's own hand (one per participant: raising a raised hand keeps its place and sends nothing). */
    private void raiseHand(CommandContext x, ObjectNode answer) throws SQLException {
        x.requireOpen();
        UUID pid = JsonBody.uuid(x.body, "participant_id", false);
        if (pid != null && !pid.equals(x.actor.participantId())) {
            throw ApiException.forbidden("not_your_participant", "a participant raises only its own hand");
        }
        HandQueue.Raise r = HandQueue.raise(x.c, x.meetingId(), x.actor.participantId(), x.epoch);
        answer.put("participant_id", x.actor.participantId().toString());
        answer.put("hand_raised", true);
        answer.put("raised_at", HandQueue.time(r.hand().raisedAt()));
        if (r.raised()) {
            x.defer("hand_raised", r.hand().json(), null, null);
        }
    }

    /** Lowers the caller's own hand, or (moderators only) another participant's. Lowering a lowered hand is a no-op. */
    private void lowerHand(CommandContext x, ObjectNode answer) throws SQLException {
        x.requireOpen();
        UUID pid = JsonBody.uuid(x.body, "participant_id", false);
        if (pid == null || pid.equals(x.actor.participantId())) {
            pid = x.actor.participantId();
        } else if (!x.actor.isModerator()) {
            throw ApiException.forbidden("not_a_moderator", "only the host or a cohost may lower another participant's hand");
        } else {
            x.target(); // exists in this meeting (404 otherwise), not the host's for a cohost
        }
        answer.put("participant_id", pid.toString());
        answer.put("hand_raised", false);
        if (HandQueue.lower(x.c, x.meetingId(), pid, x.epoch)) {
            x.defer("hand_lowered", handLowered(pid, pid.equals(x.actor.participantId()) ? "lowered" : "lowered_by_moderator"),
                    null, null);
        }
    }

    private static ObjectNode handLowered(UUID pid, String reason) {
        ObjectNode ev = JsonBody.obj();
        ev.put("participant_id", pid.toString());
        ev.put("reason", reason);
        return ev;
    }

    private static boolean speakAllowed(CommandContext x, UUID pid) throws SQLException {
        try (PreparedStatement ps = x.c.prepareStatement(
                "SELECT speak_allowed FROM meeting_participants WHERE meeting_id = ? AND participant_id = ?")) {
            ps.setObject(1, x.meetingId());
            ps.setObject(2, pid);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }
}
