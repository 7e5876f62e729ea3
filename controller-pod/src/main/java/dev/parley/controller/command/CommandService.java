package dev.parley.controller.command;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.auth.Caller;
import dev.parley.controller.control.ControlEvent;
import dev.parley.controller.control.ControlLog;
import dev.parley.controller.db.Db;
import dev.parley.controller.db.Pipeline;
import dev.parley.controller.meeting.MeetingRow;
import dev.parley.controller.meeting.MeetingService;
import dev.parley.controller.outbox.Outbox;
import dev.parley.controller.participant.ParticipantRow;
import dev.parley.controller.participant.ParticipantService;
import dev.parley.controller.participant.Seats;
import jakarta.inject.Singleton;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Desired-state commands of a meeting (never toggles). Each runs in one transaction on the owner: lock
 * the meeting row (fenced by epoch), check the caller's role, check the Idempotency-Key, apply fenced
 * updates, append control events and outbox rows, store the answer for replays.
 */
@Singleton
public class CommandService {
    public static final Set<String> TYPES = Set.of("admit", "deny", "remove_participant", "set_publish",
            "revoke_audio_publish", "mute_all", "request_unmute", "set_role", "transfer_host", "lock_meeting",
            "end_meeting", "start_recording", "stop_recording");
    // a pooled factory: callers are virtual threads, whose per-thread buffer pools never get reused
    private static final ObjectMapper JSON = JsonMapper.builder(JsonBody.pooledFactory()).build();
    /** Commands on one participant ({@code participant_id}): its row is fetched with the meeting lock. */
    private static final Set<String> TARGETED = Set.of("admit", "deny", "remove_participant", "set_publish",
            "revoke_audio_publish", "request_unmute", "set_role", "transfer_host");
    /** This key's stored command (parameters: meeting id, principal id, key). */
    private static final String STORED = "SELECT command_id, request_hash, command_type, response::text FROM commands "
            + "WHERE meeting_id = ? AND principal_id = ? AND idempotency_key = ?";

    private final Db db;
    private final ControlLog log;
    private final Outbox outbox;

    private final CommandRepository repository;

    public CommandService(Db db, ControlLog log, Outbox outbox, CommandRepository repository) {
        this.db = db;
        this.log = log;
        this.outbox = outbox;
        this.repository = repository;
    }

    /**
     * What a committed command means for media: participants whose grants changed (new versions) and
     * whether enforcement must be tracked until applied.
     */
    public record Committed(UUID commandId, ObjectNode answer, List<ControlEvent> events, Map<UUID, Long> grantTargets,
                            List<ParticipantRow> changed, boolean pending, boolean endsMeeting, boolean replay) {
    }

    public Committed execute(Caller caller, UUID meetingId, long epoch, String key, ObjectNode body) {
        String type = JsonBody.text(body, "type", true, 64);
        if (!TYPES.contains(type)) {
            throw ApiException.badRequest("unknown_command", "unknown command type '" + type + "'")
                    .with("known_types", TYPES.stream().sorted().toList());
        }
        String hash = JsonBody.hash(body);
        UUID prefetch = TARGETED.contains(type) ? quietUuid(body.get("participant_id")) : null;
        if ("admit".equals(type) && prefetch != null) {
            Committed admitted = admitInOneCall(caller, meetingId, epoch, key, hash, body);
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
            List<String> sql = new ArrayList<>(List.of(MeetingRow.SELECT_FOR_UPDATE, STORED, ParticipantRow.SELECT_ACTIVE_OF));
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
                    stored = rs.next() ? new CommandRecord(rs.getObject(1, UUID.class), meetingId, caller.principalId(),
                            key, rs.getString(2), rs.getString(3), null, null, null, rs.getString(4), epoch, null, null)
                            : null;
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
            Committed replay = replay(stored, hash);
            if (replay != null) {
                return replay;
            }
            ParticipantRow actor = moderator(own);
            Ctx x = new Ctx(c, m, epoch, actor, body, new ArrayList<>(), new HashMap<>(), new HashMap<>(), prefetch,
                    prefetched, new ArrayList<>());
            UUID commandId = UUID.randomUUID();
            ObjectNode answer = JsonBody.obj();
            boolean endsMeeting = false;
            switch (type) {
                case "admit" -> admit(x, answer);
                case "deny" -> deny(x, answer);
                case "remove_participant" -> remove(x, answer);
                case "set_publish" -> setPublish(x, answer, false);
                case "revoke_audio_publish" -> setPublish(x, answer, true);
                case "mute_all" -> muteAll(x);
                case "request_unmute" -> requestUnmute(x, answer);
                case "set_role" -> setRole(x, answer);
                case "transfer_host" -> transferHost(x, answer);
                case "lock_meeting" -> lock(x);
                case "end_meeting" -> {
                    endMeeting(x);
                    endsMeeting = true;
                }
                case "start_recording" -> startRecording(x, answer, commandId);
                case "stop_recording" -> stopRecording(x, answer);
                default -> throw new IllegalStateException(type);
            }
            boolean pending = false;
            for (UUID pid : x.targets.keySet()) {
                ParticipantRow p = current(x, pid);
                if (p.sfuPod() != null) {
                    pending = true;
                }
            }
            answer.put("command_id", commandId.toString());
            answer.put("state", "committed");
            answer.put("media_enforcement", pending ? "pending" : "not_required");
            if (endsMeeting && !pending) {
                x.flush(log);
                finishEnd(c, meetingId, epoch, x.events);
            }
            UUID target = body.hasNonNull("participant_id") ? JsonBody.uuid(body, "participant_id", false) : null;
            ObjectNode cmdEvent = JsonBody.obj();
            cmdEvent.put("command_id", commandId.toString());
            // command_type, not type: the socket merges the payload into an event whose own type is
            // "command_committed", and a payload "type" used to overwrite it (docs/api.md)
            cmdEvent.put("command_type", type);
            cmdEvent.put("media_enforcement", pending ? "pending" : "not_required");
            if (target != null) {
                cmdEvent.put("participant_id", target.toString());
            }
            // webhook payloads are nested (no clash): they keep the old "type" field for existing consumers
            ObjectNode webhook = cmdEvent.deepCopy();
            webhook.put("type", type);
            x.deferred.add(new ControlLog.Entry("command_committed", cmdEvent, null,
                    new Outbox.Event(Math.max(1, m.version()), "command." + type, commandId.toString(), webhook)));
            // this command's events (one statement) and its record, in one round trip
            x.events.addAll(log.appendAll(c, meetingId, epoch, x.deferred, new CommandInsert(commandId, meetingId,
                    caller.principalId(), key, hash, type, target, pending ? "pending" : "not_required", answer.toString(),
                    epoch)));
            x.deferred.clear();
            return new Committed(commandId, answer, x.events, x.targets, List.copyOf(x.updated.values()), pending,
                    endsMeeting, false);
        });
    }

    /**
     * The usual admit (a moderator admitting a waiting participant) as ONE call of the database function
     * {@code admit_participant} (migration V5), in autocommit: one round trip instead of four, the same rows written.
     * Null when the function found anything else (it then wrote nothing): the general path below answers it.
     */
    private Committed admitInOneCall(Caller caller, UUID meetingId, long epoch, String key, String hash, ObjectNode body) {
        UUID target;
        Long expected;
        try {
            target = JsonBody.uuid(body, "participant_id", true);
            expected = JsonBody.nonNegativeLong(body, "expected_participant_version", false);
        } catch (ApiException malformed) {
            return null; // the general path rejects it, in its order
        }
        UUID commandId = UUID.randomUUID();
        UUID[] eventIds = {UUID.randomUUID(), UUID.randomUUID()};
        return db.oneStatement(c -> {
            try (PreparedStatement ps = c.prepareStatement(ADMIT)) {
                ps.setObject(1, meetingId);
                ps.setLong(2, epoch);
                ps.setObject(3, caller.tenantId());
                ps.setObject(4, caller.principalId());
                ps.setString(5, key);
                ps.setString(6, hash);
                ps.setObject(7, target);
                if (expected == null) {
                    ps.setNull(8, java.sql.Types.BIGINT);
                } else {
                    ps.setLong(8, expected);
                }
                ps.setObject(9, commandId);
                ps.setArray(10, c.createArrayOf("uuid", eventIds));
                ps.setArray(11, c.createArrayOf("uuid", new UUID[]{UUID.randomUUID(), UUID.randomUUID()}));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (!"admitted".equals(rs.getString(1))) {
                        return null;
                    }
                    long seq = rs.getLong(2);
                    ParticipantRow p = ParticipantRow.read(rs, 2);
                    // the answer and events as the general path builds them (admit, then the command's own event)
                    ObjectNode answer = JsonBody.obj();
                    answer.put("participant_version", p.version());
                    answer.put("command_id", commandId.toString());
                    answer.put("state", "committed");
                    answer.put("media_enforcement", "not_required");
                    ObjectNode cmdEvent = JsonBody.obj();
                    cmdEvent.put("command_id", commandId.toString());
                    cmdEvent.put("command_type", "admit");
                    cmdEvent.put("media_enforcement", "not_required");
                    cmdEvent.put("participant_id", target.toString());
                    List<ControlEvent> events = List.of(
                            new ControlEvent(meetingId, epoch, seq, eventIds[0], "participant_admitted",
                                    ParticipantService.participantJson(p), null),
                            new ControlEvent(meetingId, epoch, seq + 1, eventIds[1], "command_committed", cmdEvent, null));
                    return new Committed(commandId, answer, events, new HashMap<>(), List.of(p), false, false, false);
                }
            }
        });
    }

    /** {@code admit_participant}'s parameters, in {@link #admitInOneCall}'s binding order. */
    private static final String ADMIT = "SELECT * FROM admit_participant(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    /** The command record (for GET commands/{id} and Idempotency-Key replays), written after its events. */
    private record CommandInsert(UUID commandId, UUID meetingId, UUID principalId, String key, String hash, String type,
                                 UUID target, String mediaEnforcement, String response, long epoch)
            implements ControlLog.Rider {
        @Override
        public String sql() {
            return "INSERT INTO commands (command_id, meeting_id, principal_id, idempotency_key, request_hash, command_type, "
                    + "participant_id, state, media_enforcement, response, controller_epoch) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, 'committed', ?, ?::jsonb, ?)";
        }

        @Override
        public void bind(PreparedStatement ps, int i) throws SQLException {
            ps.setObject(i, commandId);
            ps.setObject(i + 1, meetingId);
            ps.setObject(i + 2, principalId);
            ps.setString(i + 3, key);
            ps.setString(i + 4, hash);
            ps.setString(i + 5, type);
            ps.setObject(i + 6, target);
            ps.setString(i + 7, mediaEnforcement);
            ps.setString(i + 8, response);
            ps.setLong(i + 9, epoch);
        }
    }

    private record Ctx(Connection c, MeetingRow m, long epoch, ParticipantRow actor, ObjectNode body,
                       List<ControlEvent> events, Map<UUID, Long> targets, Map<UUID, ParticipantRow> updated,
                       UUID prefetchedId, ParticipantRow prefetched, List<ControlLog.Entry> deferred) {
        /** Appends the events deferred so far (one round trip for all of them). */
        void flush(ControlLog log) throws SQLException {
            events.addAll(log.appendAll(c, m.meetingId(), epoch, deferred));
            deferred.clear();
        }
    }

    private static Committed replay(CommandRecord r, String hash) throws SQLException {
        if (r == null) {
            return null;
        }
        if (!hash.equals(r.requestHash())) {
            throw ApiException.conflict("idempotency_key_reused", "this Idempotency-Key was used with a different request");
        }
        try {
            ObjectNode stored = (ObjectNode) JSON.readTree(r.response());
            return new Committed(r.commandId(), stored, List.of(), Map.of(), List.of(), false, false, true);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new SQLException(e);
        }
    }

    private static ParticipantRow moderator(List<ParticipantRow> own) {
        for (ParticipantRow p : own) {
            if (p.isModerator()) {
                return p;
            }
        }
        throw ApiException.forbidden("not_a_moderator", "only the host or a cohost may run meeting commands");
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

    private static void requireHost(Ctx x) {
        if (!"host".equals(x.actor.role())) {
            throw ApiException.forbidden("not_host", "only the host may run this command");
        }
    }

    private static void requireOpen(Ctx x) {
        if (x.m.isClosing()) {
            throw ApiException.conflict("meeting_ended", "the meeting is " + x.m.status());
        }
    }

    /** The target participant, checked against expected_participant_version when given. */
    private static ParticipantRow target(Ctx x) throws SQLException {
        UUID pid = JsonBody.uuid(x.body, "participant_id", true);
        Long expected = JsonBody.nonNegativeLong(x.body, "expected_participant_version", false);
        ParticipantRow p;
        if (pid.equals(x.prefetchedId)) {
            if (x.prefetched == null) {
                throw ApiException.notFound("participant_not_found", "no such participant in this meeting");
            }
            p = x.prefetched; // read (and locked) right after the meeting lock, in the same round trip
        } else {
            p = ParticipantRow.require(x.c, x.m.meetingId(), pid, true);
        }
        if (expected != null && expected != p.version()) {
            throw ApiException.conflict("version_conflict", "participant version is " + p.version())
                    .with("current_version", p.version());
        }
        if ("host".equals(p.role()) && !"host".equals(x.actor.role()) && !p.participantId().equals(x.actor.participantId())) {
            throw ApiException.forbidden("cannot_target_host", "a cohost cannot act on the host");
        }
        return p;
    }

    private long update(Ctx x, ParticipantRow p, String set, Object... params) throws SQLException {
        ParticipantRow now = ParticipantRow.fencedUpdateRow(x.c, x.m.meetingId(), p.participantId(), p.version(), x.epoch,
                set, params);
        x.targets.put(p.participantId(), now.version());
        x.updated.put(p.participantId(), now);
        return now.version();
    }

    /** The row as this transaction last wrote it (no re-read), or as the database has it now. */
    private static ParticipantRow current(Ctx x, UUID pid) throws SQLException {
        ParticipantRow p = x.updated.get(pid);
        return p != null ? p : ParticipantRow.require(x.c, x.m.meetingId(), pid, false);
    }

    private void emitParticipant(Ctx x, String type, UUID pid, ObjectNode extra) throws SQLException {
        ParticipantRow now = current(x, pid);
        ObjectNode ev = ParticipantService.participantJson(now);
        if (extra != null) {
            ev.setAll(extra);
        }
        x.deferred.add(new ControlLog.Entry(type, ev, null,
                new Outbox.Event(now.version(), "participant." + type, pid + ":" + now.version(), ev)));
    }

    private void admit(Ctx x, ObjectNode answer) throws SQLException {
        requireOpen(x);
        ParticipantRow p = target(x);
        if (p.isAdmitted()) {
            answer.put("participant_version", p.version());
            return; // desired state already holds
        }
        if (!"waiting".equals(p.admissionState())) {
            throw ApiException.conflict("invalid_state", "participant is " + p.admissionState());
        }
        boolean audio = !x.m.muteAll() || x.m.allowSelfUnmute();
        long v = update(x, p, "admission_state = 'admitted', admitted_at = now(), audio_publish_allowed = ?, "
                + "video_publish_allowed = true", audio);
        x.targets.remove(p.participantId()); // no transport yet: nothing to enforce
        if ("scheduled".equals(x.m.status())) {
            try (PreparedStatement ps = x.c.prepareStatement("UPDATE meetings SET status = 'live', version = version + 1 "
                    + "WHERE meeting_id = ? AND status = 'scheduled' AND controller_epoch = ?")) {
                ps.setObject(1, x.m.meetingId());
                ps.setLong(2, x.epoch);
                ps.executeUpdate();
            }
        }
        answer.put("participant_version", v);
        emitParticipant(x, "participant_admitted", p.participantId(), null);
    }

    private void deny(Ctx x, ObjectNode answer) throws SQLException {
        ParticipantRow p = target(x);
        if (!"waiting".equals(p.admissionState())) {
            throw ApiException.conflict("invalid_state", "only waiting participants can be denied; participant is "
                    + p.admissionState());
        }
        long v = update(x, p, "admission_state = 'removed'");
        x.targets.remove(p.participantId());
        Seats.release(x.c, x.m.meetingId(), x.m.tenantId(), 1);
        answer.put("participant_version", v);
        emitParticipant(x, "participant_denied", p.participantId(), null);
    }

    private void remove(Ctx x, ObjectNode answer) throws SQLException {
        ParticipantRow p = target(x);
        Boolean allowRejoin = JsonBody.bool(x.body, "allow_rejoin", false);
        if (p.participantId().equals(x.actor.participantId())) {
            throw ApiException.conflict("cannot_remove_self", "use leave to leave the meeting");
        }
        if (!allowRejoin(allowRejoin)) {
            try (PreparedStatement ps = x.c.prepareStatement("INSERT INTO principal_bans (meeting_id, principal_id, "
                    + "banned_participant_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")) {
                ps.setObject(1, x.m.meetingId());
                ps.setObject(2, p.principalId());
                ps.setObject(3, p.participantId());
                ps.executeUpdate();
            }
        }
        if ("removed".equals(p.admissionState())) {
            answer.put("participant_version", p.version());
            return;
        }
        boolean wasActive = p.isActive();
        long v = update(x, p, "admission_state = 'removed', audio_publish_allowed = false, video_publish_allowed = false, "
                + "screen_publish_allowed = false, role = CASE WHEN p.role = 'host' THEN 'attendee' ELSE p.role END");
        if (wasActive) {
            Seats.release(x.c, x.m.meetingId(), x.m.tenantId(), 1);
        }
        answer.put("participant_version", v);
        ObjectNode extra = JsonBody.obj();
        extra.put("banned", !allowRejoin(allowRejoin));
        emitParticipant(x, "participant_removed", p.participantId(), extra);
    }

    private static boolean allowRejoin(Boolean b) {
        return b != null && b;
    }

    private void setPublish(Ctx x, ObjectNode answer, boolean revokeAudioOnly) throws SQLException {
        requireOpen(x);
        ParticipantRow p = target(x);
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
        long nv = update(x, p, "audio_publish_allowed = ?, video_publish_allowed = ?, screen_publish_allowed = ?, "
                + "unmute_requested = false", a, v, s);
        answer.put("participant_version", nv);
        emitParticipant(x, "permission_changed", p.participantId(), null);
    }

    private void muteAll(Ctx x) throws SQLException {
        requireOpen(x);
        Boolean allowSelf = JsonBody.bool(x.body, "allow_self_unmute", true);
        try (PreparedStatement ps = x.c.prepareStatement("UPDATE meetings SET mute_all = true, allow_self_unmute = ?, "
                + "version = version + 1, updated_at = now() WHERE meeting_id = ? AND controller_epoch = ?")) {
            ps.setBoolean(1, allowSelf);
            ps.setObject(2, x.m.meetingId());
            ps.setLong(3, x.epoch);
            if (ps.executeUpdate() == 0) {
                throw ApiException.unavailable("owner_changed", "controller epoch superseded; retry");
            }
        }
        if (!allowSelf) {
            // the server permission goes away for everyone but moderators: enforced at the SFUs
            for (ParticipantRow p : ParticipantRow.all(x.c, x.m.meetingId(),
                    "AND admission_state = 'admitted' AND role = 'attendee' AND audio_publish_allowed")) {
                update(x, p, "audio_publish_allowed = false, unmute_requested = false");
            }
        }
        ObjectNode ev = JsonBody.obj();
        ev.put("allow_self_unmute", allowSelf);
        // clients mute their microphones; with allow_self_unmute the permission stays and users may unmute
        x.deferred.add(new ControlLog.Entry("mute_all", ev, null, null));
        for (UUID pid : List.copyOf(x.targets.keySet())) {
            emitParticipant(x, "permission_changed", pid, null);
        }
    }

    /** Asks the participant to unmute: grants permission, never turns the microphone on by itself. */
    private void requestUnmute(Ctx x, ObjectNode answer) throws SQLException {
        requireOpen(x);
        ParticipantRow p = target(x);
        if (!p.isAdmitted()) {
            throw ApiException.conflict("invalid_state", "participant is " + p.admissionState());
        }
        long v = update(x, p, "audio_publish_allowed = true, unmute_requested = true");
        answer.put("participant_version", v);
        ObjectNode ev = JsonBody.obj();
        ev.put("participant_id", p.participantId().toString());
        ev.put("participant_version", v);
        ev.put("note", "the client asks the user; it never unmutes on its own");
        x.deferred.add(new ControlLog.Entry("unmute_requested", ev, p.participantId(), null));
        emitParticipant(x, "permission_changed", p.participantId(), null);
    }

    private void setRole(Ctx x, ObjectNode answer) throws SQLException {
        requireOpen(x);
        requireHost(x);
        String role = JsonBody.oneOf(x.body, "role", true, "cohost", "attendee");
        ParticipantRow p = target(x);
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
        long v = update(x, p, "role = ?, screen_publish_allowed = ?", role, "cohost".equals(role) || p.screen());
        answer.put("participant_version", v);
        emitParticipant(x, "role_changed", p.participantId(), null);
    }

    /** Old host becomes cohost and the target becomes host, in this one transaction (unique index backs it). */
    private void transferHost(Ctx x, ObjectNode answer) throws SQLException {
        requireOpen(x);
        requireHost(x);
        ParticipantRow p = target(x);
        if (!p.isAdmitted()) {
            throw ApiException.conflict("invalid_state", "participant is " + p.admissionState());
        }
        if (p.participantId().equals(x.actor.participantId())) {
            answer.put("participant_version", p.version());
            return;
        }
        ParticipantRow oldHost = ParticipantRow.require(x.c, x.m.meetingId(), x.actor.participantId(), true);
        update(x, oldHost, "role = 'cohost'");
        long v = update(x, p, "role = 'host', screen_publish_allowed = true, audio_publish_allowed = true");
        answer.put("participant_version", v);
        emitParticipant(x, "role_changed", oldHost.participantId(), null);
        emitParticipant(x, "role_changed", p.participantId(), null);
    }

    private void lock(Ctx x) throws SQLException {
        requireOpen(x);
        Boolean locked = JsonBody.bool(x.body, "locked", false);
        boolean l = locked == null || locked;
        try (PreparedStatement ps = x.c.prepareStatement("UPDATE meetings SET locked = ?, version = version + 1, "
                + "updated_at = now() WHERE meeting_id = ? AND controller_epoch = ?")) {
            ps.setBoolean(1, l);
            ps.setObject(2, x.m.meetingId());
            ps.setLong(3, x.epoch);
            ps.executeUpdate();
        }
        ObjectNode ev = JsonBody.obj();
        ev.put("locked", l);
        x.deferred.add(new ControlLog.Entry("meeting_locked", ev, null, null));
    }

    /** ending now; ended once media enforcement is done (or at once when nobody had media). */
    private void endMeeting(Ctx x) throws SQLException {
        requireHost(x);
        if (x.m.isClosing()) {
            return;
        }
        try (PreparedStatement ps = x.c.prepareStatement("UPDATE meetings SET status = 'ending', version = version + 1, "
                + "updated_at = now() WHERE meeting_id = ? AND controller_epoch = ?")) {
            ps.setObject(1, x.m.meetingId());
            ps.setLong(2, x.epoch);
            ps.executeUpdate();
        }
        int released = 0;
        for (ParticipantRow p : ParticipantRow.all(x.c, x.m.meetingId(), "AND admission_state IN ('waiting','admitted')")) {
            update(x, p, "admission_state = 'left', audio_publish_allowed = false, video_publish_allowed = false, "
                    + "screen_publish_allowed = false, role = CASE WHEN p.role = 'host' THEN 'attendee' ELSE p.role END");
            released++;
        }
        Seats.release(x.c, x.m.meetingId(), x.m.tenantId(), released);
        try (PreparedStatement ps = x.c.prepareStatement("UPDATE recording_jobs SET stop_requested = true, updated_at = now() "
                + "WHERE meeting_id = ? AND state IN ('requested','starting','recording')")) {
            ps.setObject(1, x.m.meetingId());
            ps.executeUpdate();
        }
        x.deferred.add(new ControlLog.Entry("meeting_ending", JsonBody.obj(), null, null));
        outbox.add(x.c, x.m.meetingId(), x.m.version() + 1, "meeting.ending", x.m.meetingId().toString(), JsonBody.obj());
    }

    /** ending → ended (after enforcement). Idempotent. */
    public void finishEnd(Connection c, UUID meetingId, long epoch, List<ControlEvent> events) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE meetings SET status = 'ended', ended_at = now(), "
                + "version = version + 1, updated_at = now() WHERE meeting_id = ? AND status = 'ending' "
                + "AND controller_epoch = ? RETURNING version")) {
            ps.setObject(1, meetingId);
            ps.setLong(2, epoch);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    long v = rs.getLong(1);
                    events.add(log.append(c, meetingId, epoch, "meeting_ended", JsonBody.obj(), null));
                    outbox.add(c, meetingId, v, "meeting.ended", meetingId.toString(), JsonBody.obj());
                }
            }
        }
    }

    private void startRecording(Ctx x, ObjectNode answer, UUID commandId) throws SQLException {
        requireOpen(x);
        if ("e2ee".equals(x.m.encryptionMode())) {
            throw ApiException.conflict("recording_not_allowed_e2ee",
                    "cloud recording is not available in end-to-end encrypted meetings");
        }
        UUID job = UUID.randomUUID();
        try (PreparedStatement ps = x.c.prepareStatement("INSERT INTO recording_jobs (job_id, meeting_id, requested_by, state) "
                + "VALUES (?, ?, ?, 'requested') ON CONFLICT DO NOTHING")) {
            ps.setObject(1, job);
            ps.setObject(2, x.m.meetingId());
            ps.setObject(3, x.actor.principalId());
            if (ps.executeUpdate() == 0) {
                throw ApiException.conflict("recording_already_active", "a recording is already running");
            }
        }
        answer.put("recording_job_id", job.toString());
        ObjectNode ev = JsonBody.obj();
        ev.put("recording_job_id", job.toString());
        ev.put("state", "requested");
        x.deferred.add(new ControlLog.Entry("recording_state", ev, null, null));
        outbox.add(x.c, x.m.meetingId(), 1, "recording.requested", job.toString(), ev);
    }

    private void stopRecording(Ctx x, ObjectNode answer) throws SQLException {
        try (PreparedStatement ps = x.c.prepareStatement("UPDATE recording_jobs SET stop_requested = true, updated_at = now() "
                + "WHERE meeting_id = ? AND state IN ('requested','starting','recording') RETURNING job_id")) {
            ps.setObject(1, x.m.meetingId());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw ApiException.conflict("no_active_recording", "no recording is running");
                }
                UUID job = rs.getObject(1, UUID.class);
                answer.put("recording_job_id", job.toString());
                ObjectNode ev = JsonBody.obj();
                ev.put("recording_job_id", job.toString());
                ev.put("stop_requested", true);
                x.deferred.add(new ControlLog.Entry("recording_state", ev, null, null));
                outbox.add(x.c, x.m.meetingId(), 1, "recording.stop_requested", job.toString(), ev);
            }
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
                finishEnd(c, meetingId, epoch, events);
            }
            return events;
        });
    }
}
