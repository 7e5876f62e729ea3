package dev.parley.controller.participant;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.auth.Caller;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.control.ControlEvent;
import dev.parley.controller.control.ControlLog;
import dev.parley.controller.db.Db;
import dev.parley.controller.meeting.MeetingRow;
import dev.parley.controller.meeting.MeetingService;
import dev.parley.controller.meeting.NotOwnerException;
import dev.parley.controller.outbox.Outbox;
import dev.parley.controller.roster.RosterEntry;
import dev.parley.controller.roster.RosterProjector;
import jakarta.inject.Singleton;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.UUID;

/** Join requests (waiting room or admitted) and leaving. Runs on the meeting's owner. */
@Singleton
public class ParticipantService {
    private final Db db;
    private final ControlLog log;
    private final Outbox outbox;
    private final ParleyConfig cfg;
    /**
     * Most ids one {@code GET participants?ids=} may name: 100 ids (3.7 KB) keep the request line under the HTTP
     * server's 4 KB limit (a longer one is a 413); a client watching more asks in several requests.
     */
    public static final int MAX_ROSTER_IDS = 100;

    private final RosterProjector roster;

    public ParticipantService(Db db, ControlLog log, Outbox outbox, ParleyConfig cfg, RosterProjector roster) {
        this.db = db;
        this.log = log;
        this.outbox = outbox;
        this.cfg = cfg;
        this.roster = roster;
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

    /**
     * The whole join is ONE call of the database function {@code join_meeting} (migration V5): meeting lock,
     * epoch and tenant check, this key's earlier join, the refusals, both seats, the row, go-live and the event
     * with its outbox row, in the order the checks had in Java. Called in autocommit, so it is one round trip and
     * its own transaction (no BEGIN/COMMIT).
     */
    private Joined joinOnce(Caller caller, UUID meetingId, long epoch, String key, ObjectNode body, UUID clientInstance,
                            String displayName, String hash) {
        ObjectNode stored = body.deepCopy();
        stored.put("_hash", hash);
        UUID eventId = UUID.randomUUID();
        JoinOutcome r;
        try {
            r = db.oneStatement(c -> {
                try (PreparedStatement ps = c.prepareStatement(JOIN)) {
                    ps.setObject(1, meetingId);
                    ps.setLong(2, epoch);
                    ps.setObject(3, caller.tenantId());
                    ps.setObject(4, caller.principalId());
                    ps.setObject(5, clientInstance);
                    ps.setString(6, key);
                    ps.setString(7, displayName);
                    ps.setString(8, stored.toString());
                    ps.setObject(9, UUID.randomUUID());
                    ps.setInt(10, cfg.tenantMaxConcurrentParticipants());
                    ps.setObject(11, eventId);
                    ps.setObject(12, UUID.randomUUID());
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        String outcome = rs.getString(1);
                        boolean row = "existing".equals(outcome) || "joined".equals(outcome);
                        return new JoinOutcome(outcome, rs.getString(2), rs.getLong(3), row ? ParticipantRow.read(rs, 3) : null);
                    }
                }
            });
        } catch (Db.DbException e) {
            if (TENANT_FULL.equals(e.sqlState())) {
                throw new ApiException(429, "tenant_capacity_reached", "the tenant has reached its concurrent participant limit");
            }
            throw e;
        }
        switch (r.outcome()) {
            case "meeting_not_found" -> throw ApiException.notFound("meeting_not_found", "no such meeting");
            case "not_owner" -> throw new NotOwnerException(meetingId, epoch, Long.parseLong(r.info()));
            case "existing" -> {
                if (!hash.equals(r.row().joinRequestHash())) {
                    throw ApiException.conflict("idempotency_key_reused", "this Idempotency-Key was used with a different request");
                }
                return new Joined(withJoinedMuted(answer(r.row()), r.info()), List.of(), true);
            }
            case "meeting_ended" -> throw ApiException.conflict("meeting_ended", "the meeting is " + r.info());
            case "banned" -> throw ApiException.forbidden("principal_banned", "you were removed from this meeting");
            case "locked" -> throw ApiException.forbidden("meeting_locked", "the meeting is locked");
            case "device_active" -> throw ApiException.conflict("device_session_active", "this device already has an active session")
                    .with("participant_id", r.info());
            case "meeting_full" -> throw ApiException.conflict("meeting_full", "the meeting has reached its maximum participants");
            case "joined" -> {
                ParticipantRow p = r.row();
                ControlEvent e = new ControlEvent(meetingId, epoch, r.seq(), eventId,
                        p.isAdmitted() ? "participant_joined" : "participant_waiting", participantJson(p), null);
                return new Joined(withJoinedMuted(answer(p), r.info()), List.of(e), false);
            }
            default -> throw new IllegalStateException("join_meeting: " + r.outcome());
        }
    }

    /** {@code join_meeting}'s parameters, in {@link #joinOnce}'s binding order. */
    private static final String JOIN = "SELECT * FROM join_meeting(?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?)";
    /** SQLSTATE {@code join_meeting} raises when the tenant's limit is reached (the meeting seat is rolled back). */
    private static final String TENANT_FULL = "P0429";

    /** {@code join_meeting}'s answer: outcome, detail, the event's sequence, and the participant row when there is one. */
    private record JoinOutcome(String outcome, String info, long seq, ParticipantRow row) {
    }

    /**
     * {@code joined_muted}: the meeting had more participants than its {@code large_meeting_size} when this attendee
     * joined, so the client starts with microphone and camera off (join_meeting says so in its info column).
     */
    private static ObjectNode withJoinedMuted(ObjectNode answer, String info) {
        answer.put("joined_muted", "joined_muted".equals(info));
        return answer;
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

    /**
     * GET participants: a roster page ordered by participant id, served from the roster read model
     * ({@code roster_entries}, built from the participant events by {@link RosterProjector}). Display only: who may
     * read it is decided here from the tables (the meeting, the caller's own active participant row), never from the
     * read model. {@code control_cursor} is the control cursor up to which the read model has applied the meeting's
     * events (the page is exact as of it). A page found behind the meeting's cursor is read again after applying
     * the pending events here (if no other projector holds the meeting just then): a client that takes a snapshot
     * and then the roster sees no older roster than before the read model; otherwise the page may lag by a
     * projection round.
     */
    public ObjectNode roster(Caller caller, UUID meetingId, String cursor, int limit) {
        UUID after = cursor == null || cursor.isEmpty() ? null : JsonBody.parseUuid(cursor, "cursor");
        return caughtUp(meetingId, () -> rosterPage(caller, meetingId, after, limit, null));
    }

    /**
     * GET participants?ids=: the roster entries of the named participants (waiting or admitted; others are left out),
     * ordered by id, no {@code next_cursor}: what a paged client needs of the people it watches off its page (the
     * active speakers on its stage). Same access rule and freshness as {@link #roster}.
     */
    public ObjectNode rosterOf(Caller caller, UUID meetingId, List<UUID> ids) {
        return caughtUp(meetingId, () -> rosterPage(caller, meetingId, null, ids.size(), ids));
    }

    private ObjectNode caughtUp(UUID meetingId, java.util.function.Supplier<Page> read) {
        Page page = read.get();
        if (page.behind()) {
            int applied;
            try {
                applied = roster.catchUp(meetingId, false);
            } catch (RuntimeException e) {
                applied = 0; // the background projection will get there; this page lags meanwhile
            }
            if (applied > 0) {
                page = read.get();
            }
        }
        return page.json();
    }

    private record Page(ObjectNode json, boolean behind) {
    }

    /** A page after {@code after}, or (ids not null) the entries of those ids. */
    private Page rosterPage(Caller caller, UUID meetingId, UUID after, int limit, List<UUID> ids) {
        return db.readSnapshot(c -> {
            MeetingRow m = MeetingRow.load(c, meetingId, false);
            MeetingService.requireTenant(m, caller);
            if (ParticipantRow.activeOf(c, meetingId, caller.principalId()).isEmpty()
                    && !caller.principalId().equals(m.organizerId())) {
                throw ApiException.forbidden("not_a_participant", "join the meeting to see its roster");
            }
            List<RosterEntry> rows = ids != null ? RosterEntry.byIds(c, meetingId, ids) : RosterEntry.page(c, meetingId, after, limit + 1);
            String projected = RosterEntry.projectedCursor(c, meetingId);
            String current = m.controllerEpoch() + "." + m.controlSeq();
            ObjectNode out = JsonBody.obj();
            ArrayNode items = out.putArray("participants");
            for (int i = 0; i < Math.min(limit, rows.size()); i++) {
                items.add(rows.get(i).json());
            }
            // not projected yet: nothing of the current epoch is in the page
            out.put("control_cursor", projected != null ? projected : m.controllerEpoch() + ".0");
            if (rows.size() > limit) {
                out.put("next_cursor", rows.get(limit - 1).participantId().toString());
            }
            boolean behind = projected == null ? m.controlSeq() > 0 : !projected.equals(current);
            return new Page(out, behind);
        });
    }
}
