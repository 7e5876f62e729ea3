package dev.parley.controller.participant;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.auth.Caller;
import dev.parley.controller.db.Db;
import dev.parley.controller.hand.HandQueue;
import dev.parley.controller.meeting.LargeMeetingPolicy;
import dev.parley.controller.meeting.MeetingRow;
import dev.parley.controller.meeting.MeetingService;
import jakarta.inject.Singleton;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.UUID;

/**
 * GET snapshot: state and cursor from the same database snapshot (REPEATABLE READ), so that events after
 * the cursor are exactly the ones not reflected in the snapshot. Personal fields only for the caller.
 */
@Singleton
public class SnapshotService {
    private final Db db;

    public SnapshotService(Db db) {
        this.db = db;
    }

    public ObjectNode snapshot(Caller caller, UUID meetingId) {
        return db.readSnapshot(c -> {
            MeetingRow m = MeetingRow.load(c, meetingId, false);
            MeetingService.requireTenant(m, caller);
            int admitted;
            try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM meeting_participants WHERE meeting_id = ? "
                    + "AND admission_state = 'admitted'")) {
                ps.setObject(1, meetingId);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    admitted = rs.getInt(1);
                }
            }
            ObjectNode out = JsonBody.obj();
            out.put("meeting_id", meetingId.toString());
            out.put("meeting_status", m.status());
            out.put("controller_epoch", m.controllerEpoch());
            out.put("control_cursor", m.controllerEpoch() + "." + m.controlSeq());
            out.put("participant_count", admitted);
            out.put("locked", m.locked());
            out.put("mute_all", m.muteAll());
            out.put("allow_self_unmute", m.allowSelfUnmute());
            out.put("version", m.version());
            LargeMeetingPolicy.of(c, meetingId).writeTo(out);
            out.set("raised_hands", HandQueue.json(HandQueue.queue(c, meetingId)));
            List<ParticipantRow> mine = ParticipantRow.activeOf(c, meetingId, caller.principalId());
            ParticipantRow self = mine.isEmpty() ? latest(c, meetingId, caller.principalId()) : mine.get(0);
            if (self != null) {
                ObjectNode s = out.putObject("self");
                s.put("participant_id", self.participantId().toString());
                s.put("admission_state", self.admissionState());
                s.put("role", self.role());
                s.put("participant_version", self.version());
                s.put("audio_publish_allowed", self.audio());
                s.put("video_publish_allowed", self.video());
                s.put("screen_publish_allowed", self.screen());
                s.put("unmute_requested", self.unmuteRequested());
                s.put("transport_generation", self.transportGeneration());
                policyFields(c, self, s);
            }
            return out;
        });
    }

    /** The caller's own large-meeting fields: joined muted, allowed to speak, hand raised (and since when). */
    private static void policyFields(java.sql.Connection c, ParticipantRow self, ObjectNode s) throws java.sql.SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT joined_muted, speak_allowed, hand_raised_at "
                + "FROM meeting_participants WHERE meeting_id = ? AND participant_id = ?")) {
            ps.setObject(1, self.meetingId());
            ps.setObject(2, self.participantId());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                s.put("joined_muted", rs.getBoolean(1));
                s.put("speak_allowed", rs.getBoolean(2));
                java.sql.Timestamp raised = rs.getTimestamp(3);
                s.put("hand_raised", raised != null);
                if (raised != null) {
                    s.put("hand_raised_at", HandQueue.time(raised));
                }
            }
        }
    }

    private static ParticipantRow latest(java.sql.Connection c, UUID meetingId, UUID principal) throws java.sql.SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT participant_id FROM meeting_participants WHERE meeting_id = ? "
                + "AND principal_id = ? ORDER BY updated_at DESC LIMIT 1")) {
            ps.setObject(1, meetingId);
            ps.setObject(2, principal);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? ParticipantRow.find(c, meetingId, rs.getObject(1, UUID.class), false) : null;
            }
        }
    }
}
