package dev.parley.controller.transport;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.auth.Caller;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.db.Db;
import dev.parley.controller.media.SfuSelector;
import dev.parley.controller.meeting.MeetingSettings;
import dev.parley.controller.meeting.NotOwnerException;
import dev.parley.controller.participant.ParticipantRow;
import dev.parley.platform.etcd.SfuEntry;
import dev.parley.platform.ticket.TicketSigner;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
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
    private final MeetingSettings settings;

    public TransportService(Db db, SfuSelector selector, TicketSigner signer, IceServers ice, ParleyConfig cfg,
                            MeterRegistry meters, MeetingSettings settings) {
        this.settings = settings;
        this.db = db;
        this.selector = selector;
        this.signer = signer;
        this.ice = ice;
        this.cfg = cfg;
        this.staleGeneration = Counter.builder("parley_stale_generation_rejected")
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
        String mediaRegion = JsonBody.text(body, "media_region", false, 63);
        String hash = JsonBody.hash(body);
        Reserved r = reserveInDatabase(caller, meetingId, participantId, epoch, key, hash, expected, deviceKey,
                mediaRegion);
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
        out.put("audio_top_n", settings.audioTopN(meetingId));     // the client offers this many audio slots
        return new Reservation(out, r.row());
    }

    /**
     * The reservation is ONE call of the database function {@code reserve_transport} (migration V5), in autocommit:
     * one round trip, its own transaction. SFU placement stays here: the function gets the pod {@link SfuSelector}
     * would pick for a meeting without a usable SFU and the pods known to be usable or not; when it needs a pod in
     * neither list it writes nothing and names it ({@code check_pod}), and we ask again knowing it (at most once per
     * pod; with one SFU, or a meeting on the least stressed one, never).
     */
    private Reserved reserveInDatabase(Caller caller, UUID meetingId, UUID participantId, long epoch, String key,
                                      String hash, long expected, String deviceKey, String mediaRegion) {
        Map<String, SfuEntry> known = new HashMap<>(); // pod → its registry entry, for the answer
        Set<String> usable = new HashSet<>();
        // SFUs this participant must not go to (another MediaRegion, or loaded while another has room): the
        // function then leaves the meeting's SFU for the fallback, and the relay driver joins the SFUs
        SfuSelector.Placement placement = selector.place(mediaRegion);
        Set<String> unusable = new HashSet<>(placement.excluded());
        SfuEntry fallback = placement.fallback();
        if (fallback != null) {
            known.put(fallback.pod(), fallback);
            (selector.isUsable(fallback.pod()) ? usable : unusable).add(fallback.pod());
        }
        for (int round = 0; ; round++) {
            Outcome o = db.oneStatement(c -> {
                try (PreparedStatement ps = c.prepareStatement(RESERVE)) {
                    ps.setObject(1, meetingId);
                    ps.setLong(2, epoch);
                    ps.setObject(3, caller.tenantId());
                    ps.setObject(4, caller.principalId());
                    ps.setObject(5, participantId);
                    ps.setString(6, key);
                    ps.setString(7, hash);
                    ps.setLong(8, expected);
                    ps.setString(9, deviceKey);
                    ps.setString(10, fallback == null ? null : fallback.pod());
                    ps.setArray(11, c.createArrayOf("text", usable.toArray()));
                    ps.setArray(12, c.createArrayOf("text", unusable.toArray()));
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        String outcome = rs.getString(1);
                        boolean row = "replay".equals(outcome) || "reserved".equals(outcome);
                        return new Outcome(outcome, rs.getString(2), rs.getLong(3), rs.getString(4), rs.getString(5),
                                row ? ParticipantRow.read(rs, 5) : null);
                    }
                }
            });
            switch (o.outcome()) {
                case "meeting_not_found" -> throw ApiException.notFound("meeting_not_found", "no such meeting");
                case "not_owner" -> throw new NotOwnerException(meetingId, epoch, Long.parseLong(o.info()));
                case "participant_not_found" ->
                        throw ApiException.notFound("participant_not_found", "no such participant in this meeting");
                case "not_your_participant" ->
                        throw ApiException.forbidden("not_your_participant", "transports are requested by the participant itself");
                case "meeting_ended" -> throw ApiException.conflict("meeting_ended", "the meeting is " + o.info());
                case "participant_removed" -> throw ApiException.forbidden("participant_removed", "the participant was removed");
                case "not_admitted" -> throw ApiException.forbidden("not_admitted", "participant is " + o.info());
                case "key_reused" ->
                        throw ApiException.conflict("idempotency_key_reused", "this Idempotency-Key was used with a different request");
                case "superseded" -> {
                    staleGeneration.increment();
                    throw ApiException.conflict("transport_attempt_superseded",
                                    "this attempt expired; start a new one with the current generation")
                            .with("current_transport_generation", Long.parseLong(o.info()));
                }
                case "stale_generation" -> {
                    staleGeneration.increment();
                    throw ApiException.conflict("stale_transport_generation",
                                    "expected_transport_generation is " + expected + " but the current generation is " + o.info())
                            .with("current_transport_generation", Long.parseLong(o.info()));
                }
                case "no_media_server" ->
                        throw ApiException.unavailable("no_media_server", "no media server is available in this region");
                case "check_pod" -> {
                    if (round > 8 || usable.contains(o.info()) || unusable.contains(o.info())) {
                        throw new IllegalStateException("reserve_transport asked again for " + o.info());
                    }
                    SfuEntry e = selector.isUsable(o.info()) ? selector.get(o.info()).orElse(null) : null;
                    if (e != null) {
                        known.put(e.pod(), e);
                        usable.add(e.pod());
                    } else {
                        unusable.add(o.info());
                    }
                }
                case "replay", "reserved" -> {
                    SfuEntry sfu = known.get(o.pod()); // the function only answers with a pod from our lists
                    return new Reserved(o.generation(), sfu, o.deviceKey(), o.row());
                }
                default -> throw new IllegalStateException("reserve_transport: " + o.outcome());
            }
        }
    }

    /** {@code reserve_transport}'s parameters, in {@link #reserveInDatabase}'s binding order. */
    private static final String RESERVE = "SELECT * FROM reserve_transport(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    /** {@code reserve_transport}'s answer: outcome, detail, and for replay/reserved the attempt and the participant row. */
    private record Outcome(String outcome, String info, long generation, String pod, String deviceKey, ParticipantRow row) {
    }

    static Duration ticketLifetime() {
        return TicketSigner.MAX_LIFETIME;
    }
}
