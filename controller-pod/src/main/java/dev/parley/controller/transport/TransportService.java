package dev.parley.controller.transport;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.api.ApiException;
import dev.parley.controller.api.JsonBody;
import dev.parley.controller.auth.Caller;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.db.Db;
import dev.parley.controller.db.Pipeline;
import dev.parley.controller.media.SfuSelector;
import dev.parley.controller.meeting.MeetingRow;
import dev.parley.controller.meeting.MeetingService;
import dev.parley.controller.participant.ParticipantRow;
import dev.parley.platform.etcd.SfuEntry;
import dev.parley.platform.ticket.TicketSigner;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.UUID;

/**
 * POST .../transports: re-checks admission under the participant row lock and reserves a connection
 * attempt. Generation semantics (seed 000): the same attempt (same Idempotency-Key) recovers the same
 * generation; a new attempt must name the current generation in {@code expected_transport_generation}
 * and gets current + 1; anything else is a 409 with the current generation. Retries never bump it.
 */
@Singleton
public class TransportService {
    private final Db db;
    private final SfuSelector selector;
    private final TicketSigner signer;
    private final IceServers ice;
    private final ParleyConfig cfg;
    private final Counter staleGeneration;

    public TransportService(Db db, SfuSelector selector, TicketSigner signer, IceServers ice, ParleyConfig cfg,
                            MeterRegistry meters) {
        this.db = db;
        this.selector = selector;
        this.signer = signer;
        this.ice = ice;
        this.cfg = cfg;
        this.staleGeneration = Counter.builder("stale_generation_rejected")
                .description("transport requests refused for naming an old transport generation").register(meters);
    }

    record Reserved(long generation, SfuEntry sfu, String deviceKeyId, ParticipantRow row) {
    }

    /** The answer, and the participant row as the reservation left it (for the grant push, no re-read). */
    public record Reservation(ObjectNode answer, ParticipantRow row) {
    }

    public Reservation reserve(Caller caller, UUID meetingId, UUID participantId, long epoch, String key, ObjectNode body) {
        long expected = JsonBody.nonNegativeLong(body, "expected_transport_generation", true);
        String deviceKey = JsonBody.text(body, "device_key_id", true, 200);
        String hash = JsonBody.hash(body);
        Reserved r = db.tx(c -> {
            // meeting lock, participant lock, this key's earlier attempt: three statements, one round trip
            MeetingRow m;
            ParticipantRow p;
            try (Pipeline q = Pipeline.prepare(c, MeetingRow.SELECT_FOR_UPDATE, ParticipantRow.SELECT_ONE_FOR_UPDATE,
                    "SELECT request_hash, transport_generation, sfu_pod, device_key_id FROM transport_attempts "
                            + "WHERE meeting_id = ? AND participant_id = ? AND idempotency_key = ?")) {
                PreparedStatement ps = q.params();
                ps.setObject(1, meetingId);
                ps.setObject(2, meetingId);
                ps.setObject(3, participantId);
                ps.setObject(4, meetingId);
                ps.setObject(5, participantId);
                ps.setString(6, key);
                q.execute();
                m = MeetingService.requireOwner(MeetingRow.read(q.next()), meetingId, epoch, caller);
                try (ResultSet rs = q.next()) {
                    if (!rs.next()) {
                        throw ApiException.notFound("participant_not_found", "no such participant in this meeting");
                    }
                    p = ParticipantRow.read(rs);
                }
                if (!p.principalId().equals(caller.principalId())) {
                    throw ApiException.forbidden("not_your_participant", "transports are requested by the participant itself");
                }
                if (m.isClosing()) {
                    throw ApiException.conflict("meeting_ended", "the meeting is " + m.status());
                }
                if ("removed".equals(p.admissionState())) {
                    throw ApiException.forbidden("participant_removed", "the participant was removed");
                }
                if (!p.isAdmitted()) {
                    throw ApiException.forbidden("not_admitted", "participant is " + p.admissionState());
                }
                try (ResultSet rs = q.next()) {
                    if (rs.next()) {
                        if (!hash.equals(rs.getString(1))) {
                            throw ApiException.conflict("idempotency_key_reused", "this Idempotency-Key was used with a different request");
                        }
                        long gen = rs.getLong(2);
                        String pod = rs.getString(3);
                        if (gen != p.transportGeneration() || !selector.isUsable(pod)) {
                            staleGeneration.increment();
                            throw ApiException.conflict("transport_attempt_superseded",
                                            "this attempt expired; start a new one with the current generation")
                                    .with("current_transport_generation", p.transportGeneration());
                        }
                        return new Reserved(gen, selector.get(pod).orElseThrow(), rs.getString(4), p);
                    }
                }
            }
            if (expected != p.transportGeneration()) {
                staleGeneration.increment();
                throw ApiException.conflict("stale_transport_generation",
                                "expected_transport_generation is " + expected + " but the current generation is "
                                        + p.transportGeneration())
                        .with("current_transport_generation", p.transportGeneration());
            }
            SfuEntry sfu = selector.choose(m.sfuPod()).orElseThrow(() ->
                    ApiException.unavailable("no_media_server", "no media server is available in this region"));
            if (!sfu.pod().equals(m.sfuPod())) {
                try (PreparedStatement ps = c.prepareStatement("UPDATE meetings SET sfu_pod = ? WHERE meeting_id = ? "
                        + "AND controller_epoch = ?")) {
                    ps.setString(1, sfu.pod());
                    ps.setObject(2, meetingId);
                    ps.setLong(3, epoch);
                    ps.executeUpdate();
                }
            }
            long gen = expected + 1;
            // one round trip: bump the generation (only from the expected one, only under our epoch) and
            // record the attempt; no attempt row means the fenced update matched nothing
            try (PreparedStatement ps = c.prepareStatement("WITH u AS (UPDATE meeting_participants p SET "
                    + "transport_generation = ?, sfu_pod = ?, updated_at = now() WHERE p.meeting_id = ? "
                    + "AND p.participant_id = ? AND p.transport_generation = ? AND EXISTS (SELECT 1 FROM meetings m "
                    + "WHERE m.meeting_id = p.meeting_id AND m.controller_epoch = ?) RETURNING p.participant_id) "
                    + "INSERT INTO transport_attempts (meeting_id, participant_id, idempotency_key, request_hash, "
                    + "transport_generation, sfu_pod, device_key_id) SELECT ?, u.participant_id, ?, ?, ?, ?, ? FROM u")) {
                ps.setLong(1, gen);
                ps.setString(2, sfu.pod());
                ps.setObject(3, meetingId);
                ps.setObject(4, participantId);
                ps.setLong(5, expected);
                ps.setLong(6, epoch);
                ps.setObject(7, meetingId);
                ps.setString(8, key);
                ps.setString(9, hash);
                ps.setLong(10, gen);
                ps.setString(11, sfu.pod());
                ps.setString(12, deviceKey);
                if (ps.executeUpdate() == 0) {
                    throw ApiException.unavailable("owner_changed", "controller epoch superseded; retry");
                }
            }
            return new Reserved(gen, sfu, deviceKey, p.withTransport(gen, sfu.pod()));
        });
        TicketSigner.IssuedTicket t = signer.issue(meetingId.toString(), participantId.toString(), r.generation(),
                r.sfu().pod(), r.deviceKeyId(), TicketSigner.MAX_LIFETIME);
        ObjectNode out = JsonBody.obj();
        out.put("transport_generation", r.generation());
        out.put("controller_epoch", epoch);
        out.put("region", cfg.region());
        out.put("signaling_endpoint", cfg.signalingEndpoint());
        out.put("connect_ticket", t.token());
        out.put("ticket_expires_in_seconds", TicketSigner.MAX_LIFETIME.toSeconds());
        out.set("ice_servers", ice.forParticipant(participantId.toString()));
        return new Reservation(out, r.row());
    }

    static Duration ticketLifetime() {
        return TicketSigner.MAX_LIFETIME;
    }
}
