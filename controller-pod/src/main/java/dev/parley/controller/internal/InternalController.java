package dev.parley.controller.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.http.Responses;
import dev.parley.controller.control.SessionHub;
import dev.parley.controller.peer.InternalCaller;
import dev.parley.platform.internal.SfuEvent;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.micronaut.security.annotation.Secured;
import io.micronaut.security.rules.SecurityRule;

import java.util.UUID;

/**
 * Internal endpoints (shared bearer secret, never exposed publicly): SFU events for the owner, the
 * public half of the ticket key for SFUs in local mode, dead letters and a meeting's state for operators.
 */
@Controller("/internal/v1")
@Secured(SecurityRule.IS_ANONYMOUS)
@ExecuteOn(TaskExecutors.BLOCKING)
public class InternalController {
    private final InternalCaller internal;
    private final SessionHub sessions;
    private final com.nimbusds.jose.jwk.ECKey ticketKey;
    private final dev.parley.controller.db.Db db;
    private final MeetingInspector inspector;
    private final dev.parley.controller.relay.RelayDriver relays;
    private final dev.parley.controller.media.GrantService grants;

    public InternalController(InternalCaller internal, SessionHub sessions, com.nimbusds.jose.jwk.ECKey ticketKey,
                              dev.parley.controller.db.Db db, MeetingInspector inspector,
                              dev.parley.controller.relay.RelayDriver relays, dev.parley.controller.media.GrantService grants) {
        this.relays = relays;
        this.grants = grants;
        this.internal = internal;
        this.sessions = sessions;
        this.ticketKey = ticketKey;
        this.db = db;
        this.inspector = inspector;
    }

    /** The meeting as this controller sees it (kubectl parley inspect meeting asks the owner). */
    @Get("/meetings/{meetingId}/state")
    public HttpResponse<String> meetingState(@Nullable @Header("Authorization") String authorization,
                                             @PathVariable String meetingId) {
        internal.require(authorization);
        return Responses.json(200, inspector.state(JsonBody.parseUuid(meetingId, "meeting_id")));
    }

    /** Dead-lettered outbox events (visible for operators; redrive by clearing dead_lettered_at). */
    @Get("/outbox/dead-letters")
    public HttpResponse<String> deadLetters(@Nullable @Header("Authorization") String authorization) {
        internal.require(authorization);
        ObjectNode out = JsonBody.obj();
        var items = out.putArray("dead_letters");
        db.readSnapshot(c -> {
            try (var ps = c.prepareStatement("SELECT event_id, meeting_id, event_type, attempts, last_error, dead_lettered_at "
                    + "FROM outbox_events WHERE dead_lettered_at IS NOT NULL ORDER BY dead_lettered_at LIMIT 500");
                 var rs = ps.executeQuery()) {
                while (rs.next()) {
                    ObjectNode o = items.addObject();
                    o.put("event_id", rs.getString(1));
                    o.put("meeting_id", rs.getString(2));
                    o.put("event_type", rs.getString(3));
                    o.put("attempts", rs.getInt(4));
                    o.put("last_error", rs.getString(5));
                    o.put("dead_lettered_at", rs.getTimestamp(6).toInstant().toString());
                }
            }
            return null;
        });
        return Responses.json(200, out);
    }

    /** SFU → owner: hints (connected, failed, tracks, speakers); relayed to the meeting's sockets. */
    @Post("/sfu-events")
    @Consumes(MediaType.APPLICATION_JSON)
    public HttpResponse<String> sfuEvent(@Nullable @Header("Authorization") String authorization,
                                         @Nullable @Body String body) {
        internal.require(authorization);
        ObjectNode o = JsonBody.object(body);
        SfuEvent ev;
        try {
            ev = JsonBody.JSON.treeToValue(o, SfuEvent.class);
        } catch (Exception e) {
            throw ApiException.badRequest("invalid_body", "not an SFU event");
        }
        if (ev.type() == null || ev.meetingId() == null) {
            throw ApiException.badRequest("missing_field", "type and meeting_id are required");
        }
        UUID m = JsonBody.parseUuid(ev.meetingId(), "meeting_id");
        if (SfuEvent.TRANSPORT_CONNECTED.equals(ev.type()) && ev.participantId() != null && ev.sfu() != null) {
            try { // a moved participant's new connection is up: the SFU it left is released now (make-before-break)
                grants.transportConnected(m, UUID.fromString(ev.participantId()), ev.sfu());
            } catch (IllegalArgumentException ignored) {
                // not a participant id: nothing to release
            }
        }
        relays.onSfuEvent(m, ev); // tracks feed the owner's relay plan
        ObjectNode relayed = relayed(ev);
        if (ev.targeted()) {
            // about one participant's own media (its encodings, its paused subscriptions, its quality): only its sockets
            if (ev.participantId() != null) {
                sessions.volatileEventTo(m, ev.participantId(), relayed);
            }
        } else {
            sessions.volatileEvent(m, relayed);
        }
        return HttpResponse.noContent();
    }

    /**
     * What a client receives for an SFU event: the event's data fields at the top level (track ids, speakers,
     * layers…) plus {@code type} and, as before, {@code detail} = the participant id. Targeted events also carry
     * {@code participant_id} and {@code transport_generation} (the meeting-wide hints keep their old shape: the
     * client's reducer treats a {@code participant_id} on them as a roster fact).
     */
    static ObjectNode relayed(SfuEvent ev) {
        ObjectNode o = JsonBody.obj();
        if (ev.data() instanceof ObjectNode d) {
            o.setAll(d);
        }
        o.put("type", ev.type());
        String pid = ev.participantId() == null ? "" : ev.participantId();
        o.put("detail", pid);
        if (ev.targeted()) {
            o.put("participant_id", pid);
            o.put("transport_generation", ev.transportGeneration());
        }
        return o;
    }

    @Get("/ticket-key")
    public HttpResponse<String> ticketKey(@Nullable @Header("Authorization") String authorization) {
        internal.require(authorization);
        ObjectNode o = JsonBody.obj();
        o.put("jwk", ticketKey.toPublicJWK().toJSONString());
        return Responses.json(200, o);
    }
}
