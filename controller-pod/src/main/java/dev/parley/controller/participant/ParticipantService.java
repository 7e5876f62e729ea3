package dev.parley.controller.participant;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.api.ApiException;
import dev.parley.controller.api.JsonBody;
import dev.parley.controller.auth.Caller;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.control.ControlEvent;
import dev.parley.controller.control.ControlLog;
import dev.parley.controller.db.Db;
import dev.parley.controller.db.Pipeline;
import dev.parley.controller.meeting.MeetingRow;
import dev.parley.controller.meeting.MeetingService;
import dev.parley.controller.outbox.Outbox;
import jakarta.inject.Singleton;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Join requests (waiting room or admitted) and leaving. Runs on the meeting's owner. */
@Singleton
public class ParticipantService {
    private final Db db;
    private final ControlLog log;
    private final Outbox outbox;
    private final ParleyConfig cfg;

    public ParticipantService(Db db, ControlLog log, Outbox outbox, ParleyConfig cfg) {
        this.db = db;
        this.log = log;
        this.outbox = outbox;
        this.cfg = cfg;
    }

    /** Result of a join: the answer and the control events to publish after commit. */
    public record Joined(ObjectNode answer, List<ControlEvent> events, boolean replay) {
    }

    public Joined join(Caller caller, UUID meetingId, long epoch, String key, ObjectNode body) {
        UUID clientInstance = JsonBody.uuid(body, "client_instance_id", true);
        String displayName = JsonBody.text(body, "display_name", true, 100);
        JsonNode caps = body.get("capabilities");
        if (caps != null && !caps.isNull() && !caps.isObject()) {
            throw ApiException.badRequest("invalid_field", "field 'capabilities' must be an object").with("field", "capabilities");
        }
        String hash = JsonBody.hash(body);
        try {
            return joinOnce(caller, meetingId, epoch, key, body, clientInstance, displayName, hash);
        } catch (Db.DbException e) {
            if ("23505".equals(e.sqlState())) {
                // a concurrent request with the same key (or device) won: answer from its row
                return joinOnce(caller, meetingId, epoch, key, body, clientInstance, displayName, hash);
            }
            throw e;
        }
    }

    private Joined joinOnce(Caller caller, UUID meetingId, long epoch, String key, ObjectNode body, UUID clientInstance,
                            String displayName, String hash) {
        return db.tx(c -> {
            // meeting lock, then (after it, as its own statement) what the join must know: one round trip
            MeetingRow m;
            JoinView view;
            try (Pipeline q = Pipeline.prepare(c, MeetingRow.SELECT_FOR_UPDATE, JoinView.SQL)) {
                q.params().setObject(1, meetingId);
                JoinView.bind(q.params(), 2, meetingId, caller.principalId());
                q.execute();
                m = MeetingService.requireOwner(MeetingRow.read(q.next()), meetingId, epoch, caller);
                view = JoinView.read(q.next(), caller.principalId());
            }
            ParticipantRow existing = view.byKey(key);
            if (existing != null) {
                if (!hash.equals(existing.joinRequestHash())) {
                    throw ApiException.conflict("idempotency_key_reused", "this Idempotency-Key was used with a different request");
                }
                return new Joined(answer(existing), List.of(), true);
            }
            if (m.isClosing()) {
                throw ApiException.conflict("meeting_ended", "the meeting is " + m.status());
            }
            if (view.banned()) {
                throw ApiException.forbidden("principal_banned", "you were removed from this meeting");
            }
            boolean organizer = caller.principalId().equals(m.organizerId());
            if (m.locked() && !organizer) {
                throw ApiException.forbidden("meeting_locked", "the meeting is locked");
            }
            for (ParticipantRow p : view.own()) {
                if (p.isActive() && p.clientInstanceId().equals(clientInstance)) {
                    throw ApiException.conflict("device_session_active", "this device already has an active session")
                            .with("participant_id", p.participantId().toString());
                }
            }
            boolean hostPresent = view.hostPresent();
            String role = organizer && !hostPresent ? "host" : "attendee";
            boolean admitted = "host".equals(role) || !m.waitingRoomEnabled();
            boolean audio = admitted && (!m.muteAll() || m.allowSelfUnmute() || "host".equals(role));
            boolean screen = admitted && "host".equals(role);
            UUID pid = UUID.randomUUID();
            ObjectNode stored = body.deepCopy();
            ParticipantRow p;
            stored.put("_hash", hash);
            // both seats and the row in ONE round trip; a seat that is not free throws before the commit,
            // so the row inserted with it is rolled back
            try (Pipeline q = Pipeline.prepare(c, Seats.TAKE[0], Seats.TAKE[1], "INSERT INTO meeting_participants "
                    + "(meeting_id, participant_id, principal_id, client_instance_id, idempotency_key, role, admission_state, "
                    + "audio_publish_allowed, video_publish_allowed, screen_publish_allowed, display_name, join_request, "
                    + "admitted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, " + (admitted ? "now()" : "NULL") + ") "
                    + "RETURNING " + ParticipantRow.COLS)) {
                PreparedStatement ps = q.params();
                int i = Seats.bindTake(ps, 1, meetingId, m.tenantId(), cfg.tenantMaxConcurrentParticipants());
                ps.setObject(i, meetingId);
                ps.setObject(i + 1, pid);
                ps.setObject(i + 2, caller.principalId());
                ps.setObject(i + 3, clientInstance);
                ps.setString(i + 4, key);
                ps.setString(i + 5, role);
                ps.setString(i + 6, admitted ? "admitted" : "waiting");
                ps.setBoolean(i + 7, audio);
                ps.setBoolean(i + 8, admitted);
                ps.setBoolean(i + 9, screen);
                ps.setString(i + 10, displayName);
                ps.setString(i + 11, stored.toString());
                q.execute();
                Seats.requireTaken(q.nextUpdateCount(), q.nextUpdateCount());
                try (ResultSet rs = q.next()) {
                    rs.next();
                    p = ParticipantRow.read(rs);
                }
            }
            if (admitted && "scheduled".equals(m.status())) {
                goLive(c, meetingId, epoch);
            }
            ObjectNode ev = participantJson(p);
            List<ControlEvent> events = new ArrayList<>();
            events.add(log.append(c, meetingId, epoch, admitted ? "participant_joined" : "participant_waiting", ev, null,
                    new Outbox.Event(p.version(), admitted ? "participant.joined" : "participant.waiting", pid.toString(), ev)));
            return new Joined(answer(p), events, false);
        });
    }

    static void goLive(Connection c, UUID meetingId, long epoch) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE meetings SET status = 'live', version = version + 1, "
                + "updated_at = now() WHERE meeting_id = ? AND status = 'scheduled' AND controller_epoch = ?")) {
            ps.setObject(1, meetingId);
            ps.setLong(2, epoch);
            ps.executeUpdate();
        }
    }

    public static ObjectNode answer(ParticipantRow p) {
        ObjectNode out = JsonBody.obj();
        out.put("participant_id", p.participantId().toString());
        out.put("admission_state", p.admissionState());
        out.put("participant_version", p.version());
        out.put("role", p.role());
        out.put("media_access", p.isAdmitted() ? "granted" : "not_granted");
        return out;
    }

    /** Public view of a participant (no principal id, no device id). */
    public static ObjectNode participantJson(ParticipantRow p) {
        ObjectNode o = JsonBody.obj();
        o.put("participant_id", p.participantId().toString());
        o.put("display_name", p.displayName());
        o.put("role", p.role());
        o.put("admission_state", p.admissionState());
        o.put("participant_version", p.version());
        ObjectNode pub = o.putObject("publish");
        pub.put("audio", p.audio());
        pub.put("video", p.video());
        pub.put("screen", p.screen());
        return o;
    }

    /** Leaving (from the socket or after the reconnect grace). Idempotent: only an active row changes. */
    public List<ControlEvent> leave(UUID meetingId, long epoch, UUID participantId, long onlyIfGeneration, String reason) {
        return db.tx(c -> {
            MeetingRow m = MeetingRow.load(c, meetingId, true);
            if (m.controllerEpoch() != epoch) {
                throw new dev.parley.controller.meeting.NotOwnerException(meetingId, epoch, m.controllerEpoch());
            }
            ParticipantRow p = ParticipantRow.find(c, meetingId, participantId, true);
            if (p == null || !p.isActive() || (onlyIfGeneration >= 0 && p.transportGeneration() != onlyIfGeneration)) {
                return List.<ControlEvent>of();
            }
            long v = ParticipantRow.fencedUpdate(c, meetingId, participantId, p.version(), epoch,
                    "admission_state = 'left', audio_publish_allowed = false, video_publish_allowed = false, "
                            + "screen_publish_allowed = false, role = CASE WHEN p.role = 'host' THEN 'attendee' ELSE p.role END");
            Seats.release(c, meetingId, m.tenantId(), 1);
            ObjectNode ev = participantJson(ParticipantRow.require(c, meetingId, participantId, false));
            ev.put("reason", reason);
            ControlEvent e = log.append(c, meetingId, epoch, "participant_left", ev, null);
            outbox.add(c, meetingId, v, "participant.left", participantId + ":" + v, ev);
            return List.of(e);
        });
    }

    /** GET participants: roster page ordered by participant id (display only, never used for authorization). */
    public ObjectNode roster(Caller caller, UUID meetingId, String cursor, int limit) {
        UUID after = cursor == null || cursor.isEmpty() ? null : JsonBody.parseUuid(cursor, "cursor");
        return db.readSnapshot(c -> {
            MeetingRow m = MeetingRow.load(c, meetingId, false);
            MeetingService.requireTenant(m, caller);
            if (ParticipantRow.activeOf(c, meetingId, caller.principalId()).isEmpty()
                    && !caller.principalId().equals(m.organizerId())) {
                throw ApiException.forbidden("not_a_participant", "join the meeting to see its roster");
            }
            List<ParticipantRow> rows = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT " + ParticipantRow.COLS + " FROM meeting_participants "
                    + "WHERE meeting_id = ? AND admission_state IN ('waiting','admitted') AND (?::uuid IS NULL OR participant_id > ?::uuid) "
                    + "ORDER BY participant_id LIMIT ?")) {
                ps.setObject(1, meetingId);
                ps.setObject(2, after);
                ps.setObject(3, after);
                ps.setInt(4, limit + 1);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.add(ParticipantRow.read(rs));
                    }
                }
            }
            ObjectNode out = JsonBody.obj();
            ArrayNode items = out.putArray("participants");
            for (int i = 0; i < Math.min(limit, rows.size()); i++) {
                items.add(participantJson(rows.get(i)));
            }
            out.put("control_cursor", m.controllerEpoch() + "." + m.controlSeq());
            if (rows.size() > limit) {
                out.put("next_cursor", rows.get(limit - 1).participantId().toString());
            }
            return out;
        });
    }
}
