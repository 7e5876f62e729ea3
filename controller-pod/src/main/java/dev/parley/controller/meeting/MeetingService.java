package dev.parley.controller.meeting;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.aoi.AoiSettings;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.auth.Caller;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.db.Db;
import jakarta.inject.Singleton;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/** Creating and reading meetings. Creation needs no owner: ownership starts with the first join. */
@Singleton
public class MeetingService {
    private final Db db;
    private final ParleyConfig cfg;
    private final MeetingSettings settings;

    public MeetingService(Db db, ParleyConfig cfg, MeetingSettings settings) {
        this.db = db;
        this.cfg = cfg;
        this.settings = settings;
    }

    /** POST /v1/meetings. Returns the creation answer (identical for every retry with the same key). */
    public ObjectNode create(Caller caller, String key, ObjectNode body) {
        String title = JsonBody.text(body, "title", true, 200);
        Boolean waiting = JsonBody.bool(body, "waiting_room_enabled", true);
        String mode = JsonBody.oneOf(body, "encryption_mode", true, "transport", "e2ee");
        Long max = JsonBody.nonNegativeLong(body, "max_participants", false);
        if (max != null && (max < 1 || max > 10_000)) {
            throw ApiException.badRequest("invalid_field", "field 'max_participants' must be within 1..10000")
                    .with("field", "max_participants");
        }
        int maxParticipants = max == null ? cfg.meetingMaxParticipants() : max.intValue();
        AoiSettings aoi = AoiSettings.fromCreation(body);
        Long topN = JsonBody.nonNegativeLong(body, "audio_top_n", false);
        if (topN != null && (topN < 1 || topN > MeetingSettings.AUDIO_TOP_N_MAX)) {
            throw ApiException.badRequest("invalid_field",
                    "field 'audio_top_n' must be within 1.." + MeetingSettings.AUDIO_TOP_N_MAX).with("field", "audio_top_n");
        }
        int audioTopN = topN == null ? MeetingSettings.AUDIO_TOP_N_DEFAULT : topN.intValue();
        LargeMeetingPolicy policy = LargeMeetingPolicy.fromCreation(body);
        Long pageAbove = JsonBody.nonNegativeLong(body, "roster_page_above", false);
        if (pageAbove != null && (pageAbove < 1 || pageAbove > MeetingSettings.ROSTER_PAGE_ABOVE_MAX)) {
            throw ApiException.badRequest("invalid_field", "field 'roster_page_above' must be within 1.."
                    + MeetingSettings.ROSTER_PAGE_ABOVE_MAX).with("field", "roster_page_above");
        }
        UUID id = db.tx(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT create_meeting_with_outbox(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                ps.setObject(1, UUID.randomUUID());
                ps.setObject(2, caller.tenantId());
                ps.setObject(3, caller.principalId());
                ps.setString(4, key);
                ps.setString(5, title);
                ps.setString(6, mode);
                ps.setBoolean(7, waiting);
                ps.setInt(8, maxParticipants);
                ps.setString(9, cfg.region());
                UUID created;
                ps.setInt(10, audioTopN);
                if (policy.largeMeetingSize() == null) {
                    ps.setNull(11, java.sql.Types.INTEGER);
                } else {
                    ps.setInt(11, policy.largeMeetingSize());
                }
                ps.setString(12, policy.unmutePolicy());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    created = rs.getObject(1, UUID.class);
                }
                if (aoi != null) {
                    setAreaOfInterest(c, created, aoi);
                }
                if (pageAbove != null) {
                    setRosterPageAbove(c, created, pageAbove.intValue());
                }
                return created;
            } catch (SQLException e) {
                if ("P0409".equals(e.getSQLState())) {
                    throw ApiException.conflict("idempotency_key_reused",
                            "this Idempotency-Key was used with a different request");
                }
                throw e;
            }
        });
        settings.remember(id, audioTopN); // a retry's value is the same: the key is bound to the request
        ObjectNode out = JsonBody.obj();
        out.put("meeting_id", id.toString());
        out.put("status", "scheduled");
        out.put("version", 1);
        return out;
    }

    /** Mode {@code area_of_interest} on a new meeting; a retry (same key, meeting already set) changes nothing. */
    private static void setAreaOfInterest(Connection c, UUID meeting, AoiSettings aoi) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE meetings SET subscription_mode = 'area_of_interest', "
                + "aoi_radius = ?, aoi_max_participants = ? WHERE meeting_id = ? AND subscription_mode = 'all'")) {
            ps.setDouble(1, aoi.radius());
            ps.setInt(2, aoi.maxParticipants());
            ps.setObject(3, meeting);
            ps.executeUpdate();
        }
    }

    /** {@code roster_page_above} of a new meeting (the column default otherwise: no statement). */
    private static void setRosterPageAbove(Connection c, UUID meeting, int above) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE meetings SET roster_page_above = ? WHERE meeting_id = ?")) {
            ps.setInt(1, above);
            ps.setObject(2, meeting);
            ps.executeUpdate();
        }
    }

    /** GET /v1/meetings/{id}: only within the caller's tenant (other tenants see 404). */
    public ObjectNode get(Caller caller, UUID meetingId) {
        return db.readSnapshot(c -> {
            MeetingRow m = MeetingRow.load(c, meetingId, false);
            requireTenant(m, caller);
            ObjectNode out = JsonBody.obj();
            out.put("meeting_id", m.meetingId().toString());
            out.put("title", m.title());
            out.put("status", m.status());
            out.put("encryption_mode", m.encryptionMode());
            out.put("waiting_room_enabled", m.waitingRoomEnabled());
            out.put("locked", m.locked());
            out.put("max_participants", m.maxParticipants());
            out.put("audio_top_n", MeetingSettings.audioTopN(c, meetingId));
            LargeMeetingPolicy.of(c, meetingId).writeTo(out);
            out.put("roster_page_above", rosterPageAbove(c, meetingId));
            out.put("participant_count", m.activeParticipants());
            out.put("controller_epoch", m.controllerEpoch());
            out.put("version", m.version());
            out.put("organizer_id", m.organizerId().toString());
            return out;
        });
    }

    private static int rosterPageAbove(Connection c, UUID meetingId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT roster_page_above FROM meetings WHERE meeting_id = ?")) {
            ps.setObject(1, meetingId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getInt(1) : MeetingSettings.ROSTER_PAGE_ABOVE_DEFAULT;
            }
        }
    }

    /** 404 for a meeting of another tenant: no information leaks across tenants. */
    public static void requireTenant(MeetingRow m, Caller caller) {
        if (!m.tenantId().equals(caller.tenantId())) {
            throw ApiException.notFound("meeting_not_found", "no such meeting");
        }
    }

    /** Checks existence and tenant before any ownership work. */
    public void requireVisible(Caller caller, UUID meetingId) {
        db.read(c -> {
            requireTenant(MeetingRow.load(c, meetingId, false), caller);
            return null;
        });
    }

    public static MeetingRow lockForOwner(Connection c, UUID meetingId, long epoch, Caller caller) throws SQLException {
        return requireOwner(MeetingRow.load(c, meetingId, true), meetingId, epoch, caller);
    }

    /** The caller's tenant and our epoch on a meeting row read under its lock. */
    public static MeetingRow requireOwner(MeetingRow m, UUID meetingId, long epoch, Caller caller) {
        requireTenant(m, caller);
        if (m.controllerEpoch() != epoch) {
            throw new NotOwnerException(meetingId, epoch, m.controllerEpoch());
        }
        return m;
    }
}
