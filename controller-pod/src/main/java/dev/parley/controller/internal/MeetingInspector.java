package dev.parley.controller.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.db.Db;
import dev.parley.controller.media.GrantService;
import dev.parley.controller.meeting.MeetingRow;
import dev.parley.controller.ownership.Ownership;
import jakarta.inject.Singleton;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.TreeSet;
import java.util.UUID;

/**
 * {@code GET /internal/v1/meetings/{id}/state} for operators ({@code kubectl parley inspect meeting}): who owns
 * the meeting here and at which epoch, the participants with their SFU and transport generation, and the
 * commands whose media enforcement is still pending. Read from PostgreSQL in one snapshot plus this
 * process's ownership view; it includes no principal ids, tokens or tickets.
 */
@Singleton
public class MeetingInspector {
    private final Db db;
    private final Ownership ownership;
    private final GrantService grants;
    private final ParleyConfig cfg;
    private final dev.parley.controller.relay.RelayDriver relays;

    public MeetingInspector(Db db, Ownership ownership, GrantService grants, ParleyConfig cfg,
                            dev.parley.controller.relay.RelayDriver relays) {
        this.relays = relays;
        this.db = db;
        this.ownership = ownership;
        this.grants = grants;
        this.cfg = cfg;
    }

    public ObjectNode state(UUID meetingId) {
        ObjectNode out = JsonBody.obj();
        Long ownedEpoch = ownership.epochIfOwned(meetingId);
        db.readSnapshot(c -> {
            MeetingRow m = MeetingRow.load(c, meetingId, false);
            out.put("meeting_id", meetingId.toString());
            out.put("pod", cfg.podName());
            out.put("owned_here", ownedEpoch != null);
            if (ownedEpoch != null) {
                out.put("owner_epoch", ownedEpoch);
            }
            out.put("controller_epoch", m.controllerEpoch());
            out.put("status", m.status());
            out.put("version", m.version());
            out.put("control_cursor", m.controllerEpoch() + "." + m.controlSeq());
            out.put("active_participants", m.activeParticipants());
            out.put("max_participants", m.maxParticipants());
            if (m.sfuPod() != null) {
                out.put("meeting_sfu", m.sfuPod());
            }
            TreeSet<String> sfus = new TreeSet<>();
            ArrayNode parts = out.putArray("participants");
            try (PreparedStatement ps = c.prepareStatement("SELECT participant_id, role, admission_state, sfu_pod, "
                    + "transport_generation, version, audio_publish_allowed, video_publish_allowed, "
                    + "screen_publish_allowed FROM meeting_participants WHERE meeting_id = ? ORDER BY created_at")) {
                ps.setObject(1, meetingId);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ObjectNode p = parts.addObject();
                        p.put("participant_id", rs.getString(1));
                        p.put("role", rs.getString(2));
                        p.put("admission_state", rs.getString(3));
                        String sfu = rs.getString(4);
                        if (sfu != null) {
                            p.put("sfu", sfu);
                            sfus.add(sfu);
                        }
                        p.put("transport_generation", rs.getLong(5));
                        p.put("participant_version", rs.getLong(6));
                        ObjectNode pub = p.putObject("publish");
                        pub.put("audio", rs.getBoolean(7));
                        pub.put("video", rs.getBoolean(8));
                        pub.put("screen", rs.getBoolean(9));
                    }
                }
            }
            ArrayNode sfuList = out.putArray("sfus");
            sfus.forEach(sfuList::add);
            ArrayNode pending = out.putArray("pending_enforcement");
            try (PreparedStatement ps = c.prepareStatement("SELECT command_id, command_type, participant_id, created_at "
                    + "FROM commands WHERE meeting_id = ? AND media_enforcement = 'pending' ORDER BY created_at")) {
                ps.setObject(1, meetingId);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ObjectNode p = pending.addObject();
                        UUID commandId = rs.getObject(1, UUID.class);
                        p.put("command_id", commandId.toString());
                        p.put("type", rs.getString(2));
                        p.put("participant_id", rs.getString(3));
                        p.put("committed_at", rs.getTimestamp(4).toInstant().toString());
                        // tracked by this process's grant pushes (false on a non-owner or right after a takeover)
                        p.put("tracked_here", grants.isPending(meetingId, commandId));
                    }
                }
            }
            return null;
        });
        // the relays between SFUs this owner put in place (empty on a non-owner): hop, layers, epoch; no keys
        out.set("relays", JsonBody.JSON.valueToTree(relays.state(meetingId)));
        return out;
    }
}
