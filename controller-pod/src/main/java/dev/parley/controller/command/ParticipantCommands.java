package dev.parley.controller.command;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.command.store.BanWrites;
import dev.parley.controller.command.store.MeetingWrites;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.meeting.LargeMeetingPolicy;
import dev.parley.controller.participant.ParticipantRow;
import dev.parley.controller.participant.Seats;
import jakarta.inject.Singleton;

import java.sql.SQLException;
import java.util.UUID;

/** Commands on one participant: admission, removal, publish permissions, roles. */
@Singleton
final class ParticipantCommands implements CommandHandler {
    @Override
    public void run(CommandType type, CommandContext x, ObjectNode answer) throws SQLException {
        switch (type) {
            case ADMIT -> admit(x, answer);
            case DENY -> deny(x, answer);
            case REMOVE_PARTICIPANT -> remove(x, answer);
            case SET_PUBLISH -> setPublish(x, answer, false);
            case REVOKE_AUDIO_PUBLISH -> setPublish(x, answer, true);
            case REQUEST_UNMUTE -> requestUnmute(x, answer);
            case SET_ROLE -> setRole(x, answer);
            case TRANSFER_HOST -> transferHost(x, answer);
            default -> throw new IllegalStateException(type.wire());
        }
    }

    private void admit(CommandContext x, ObjectNode answer) throws SQLException {
        x.requireOpen();
        ParticipantRow p = x.target();
        if (p.isAdmitted()) {
            answer.put("participant_version", p.version());
            return; // desired state already holds
        }
        if (!"waiting".equals(p.admissionState())) {
            throw ApiException.conflict("invalid_state", "participant is " + p.admissionState());
        }
        // under unmute_policy hosts_and_presenters an attendee is admitted without audio or video (allow_speak)
        boolean may = LargeMeetingPolicy.of(x.c, x.meetingId()).mayPublish(p.role(), false);
        boolean audio = (!x.m.muteAll() || x.m.allowSelfUnmute()) && may;
        long v = x.update(p, "admission_state = 'admitted', admitted_at = now(), audio_publish_allowed = ?, "
                + "video_publish_allowed = ?", audio, may);
        x.targets.remove(p.participantId()); // no transport yet: nothing to enforce
        if ("scheduled".equals(x.m.status())) {
            MeetingWrites.goLive(x.c, x.meetingId(), x.epoch);
        }
        answer.put("participant_version", v);
        x.emitParticipant("participant_admitted", p.participantId(), null);
    }

    private void deny(CommandContext x, ObjectNode answer) throws SQLException {
        ParticipantRow p = x.target();
        if (!"waiting".equals(p.admissionState())) {
            throw ApiException.conflict("invalid_state", "only waiting participants can be denied; participant is "
                    + p.admissionState());
        }
        long v = x.update(p, "admission_state = 'removed'");
        x.targets.remove(p.participantId());
        Seats.release(x.c, x.meetingId(), x.m.tenantId(), 1);
        answer.put("participant_version", v);
        x.emitParticipant("participant_denied", p.participantId(), null);
    }

    private void remove(CommandContext x, ObjectNode answer) throws SQLException {
        ParticipantRow p = x.target();
        Boolean allowRejoin = JsonBody.bool(x.body, "allow_rejoin", false);
        if (p.participantId().equals(x.actor.participantId())) {
            throw ApiException.conflict("cannot_remove_self", "use leave to leave the meeting");
        }
        if (!allowRejoin(allowRejoin)) {
            BanWrites.ban(x.c, x.meetingId(), p.principalId(), p.participantId());
        }
        if ("removed".equals(p.admissionState())) {
            answer.put("participant_version", p.version());
            return;
        }
        boolean wasActive = p.isActive();
        long v = x.update(p, "admission_state = 'removed', audio_publish_allowed = false, video_publish_allowed = false, "
                + "screen_publish_allowed = false, role = CASE WHEN p.role = 'host' THEN 'attendee' ELSE p.role END");
        if (wasActive) {
            Seats.release(x.c, x.meetingId(), x.m.tenantId(), 1);
        }
        answer.put("participant_version", v);
        ObjectNode extra = JsonBody.obj();
        extra.put("banned", !allowRejoin(allowRejoin));
        x.emitParticipant("participant_removed", p.participantId(), extra);
    }

    private static boolean allowRejoin(Boolean b) {
        return b != null && b;
    }

    private void setPublish(CommandContext x, ObjectNode answer, boolean revokeAudioOnly) throws SQLException {
        x.requireOpen();
        ParticipantRow p = x.target();
        if (!p.isAdmitted()) {
            throw ApiException.conflict("invalid_state", "participant is " + p.admissionState());
        }
        Boolean audio = revokeAudioOnly ? Boolean.FALSE : JsonBody.bool(x.body, "audio", false);
        Boolean video = revokeAudioOnly ? null : JsonBody.bool(x.body, "video", false);
        Boolean screen = revokeAudioOnly ? null : JsonBody.bool(x.body, "screen", false);
        if (audio == null && video == null && screen == null) {
            throw ApiException.badRequest("missing_field", "set_publish needs at least one of audio, video, screen");
        }
        boolean a = audio == null ? p.audio() : audio;
        boolean v = video == null ? p.video() : video;
        boolean s = screen == null ? p.screen() : screen;
        if (a == p.audio() && v == p.video() && s == p.screen()) {
            answer.put("participant_version", p.version());
            return;
        }
        long nv = x.update(p, "audio_publish_allowed = ?, video_publish_allowed = ?, screen_publish_allowed = ?, "
                + "unmute_requested = false", a, v, s);
        answer.put("participant_version", nv);
        x.emitParticipant("permission_changed", p.participantId(), null);
    }

    /** Asks the participant to unmute: grants permission, never turns the microphone on by itself. */
    private void requestUnmute(CommandContext x, ObjectNode answer) throws SQLException {
        x.requireOpen();
        ParticipantRow p = x.target();
        if (!p.isAdmitted()) {
            throw ApiException.conflict("invalid_state", "participant is " + p.admissionState());
        }
        long v = x.update(p, "audio_publish_allowed = true, unmute_requested = true");
        answer.put("participant_version", v);
        ObjectNode ev = JsonBody.obj();
        ev.put("participant_id", p.participantId().toString());
        ev.put("participant_version", v);
        ev.put("note", "the client asks the user; it never unmutes on its own");
        x.defer("unmute_requested", ev, p.participantId(), null);
        x.emitParticipant("permission_changed", p.participantId(), null);
    }

    private void setRole(CommandContext x, ObjectNode answer) throws SQLException {
        x.requireOpen();
        x.requireHost();
        String role = JsonBody.oneOf(x.body, "role", true, "cohost", "attendee");
        ParticipantRow p = x.target();
        if (!p.isAdmitted()) {
            throw ApiException.conflict("invalid_state", "participant is " + p.admissionState());
        }
        if ("host".equals(p.role())) {
            throw ApiException.conflict("use_transfer_host", "use transfer_host to change the host");
        }
        if (role.equals(p.role())) {
            answer.put("participant_version", p.version());
            return;
        }
        // under hosts_and_presenters a new cohost may publish audio/video (moderators are never restricted) and a
        // cohost made attendee keeps them only if allowed to speak
        boolean policy = LargeMeetingPolicy.of(x.c, x.meetingId()).restrictsAttendees();
        boolean promote = policy && "cohost".equals(role);
        boolean demote = policy && "attendee".equals(role);
        long v = x.update(p, "role = ?, screen_publish_allowed = ?, "
                + "audio_publish_allowed = (audio_publish_allowed OR ?) AND (speak_allowed OR NOT ?), "
                + "video_publish_allowed = (video_publish_allowed OR ?) AND (speak_allowed OR NOT ?)",
                role, "cohost".equals(role) || p.screen(), promote, demote, promote, demote);
        answer.put("participant_version", v);
        x.emitParticipant("role_changed", p.participantId(), null);
    }

    /** Old host becomes cohost and the target becomes host, in this one transaction (unique index backs it). */
    private void transferHost(CommandContext x, ObjectNode answer) throws SQLException {
        x.requireOpen();
        x.requireHost();
        ParticipantRow p = x.target();
        if (!p.isAdmitted()) {
            throw ApiException.conflict("invalid_state", "participant is " + p.admissionState());
        }
        if (p.participantId().equals(x.actor.participantId())) {
            answer.put("participant_version", p.version());
            return;
        }
        UUID oldHostId = x.actor.participantId();
        ParticipantRow oldHost = ParticipantRow.require(x.c, x.meetingId(), oldHostId, true);
        x.update(oldHost, "role = 'cohost'");
        // the host may always publish; under hosts_and_presenters a restricted attendee also had no video
        boolean policy = LargeMeetingPolicy.of(x.c, x.meetingId()).restrictsAttendees();
        long v = x.update(p, "role = 'host', screen_publish_allowed = true, audio_publish_allowed = true, "
                + "video_publish_allowed = video_publish_allowed OR ?", policy);
        answer.put("participant_version", v);
        x.emitParticipant("role_changed", oldHost.participantId(), null);
        x.emitParticipant("role_changed", p.participantId(), null);
    }
}
