package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.peer.InternalCaller;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.micronaut.security.annotation.Secured;
import io.micronaut.security.rules.SecurityRule;

import java.util.UUID;

/**
 * Signaling between controller pods (internal secret) for sockets accepted by a pod that does not own their
 * meeting: presence (opened, closed, left: the owner keeps the reconnect grace and the leave), relayed offers and
 * subscriptions (non-owner → owner) and volatile events (owner → the pods with sockets of the meeting).
 */
@Controller("/internal/v1/signaling")
@Secured(SecurityRule.IS_ANONYMOUS)
@ExecuteOn(TaskExecutors.BLOCKING)
public class PresenceController {
    static final String PATH = "/internal/v1/signaling/presence";
    static final String RELAY_PATH = "/internal/v1/signaling/relay";
    static final String VOLATILE_PATH = "/internal/v1/signaling/volatile";
    static final String ENDED_PATH = "/internal/v1/signaling/meeting-ended";
    private final InternalCaller internal;
    private final OwnerRelay relay;
    private final OwnerPresence presence;
    private final SessionRegistry sessions;

    public PresenceController(InternalCaller internal, OwnerRelay relay, OwnerPresence presence,
                              SessionRegistry sessions) {
        this.internal = internal;
        this.relay = relay;
        this.presence = presence;
        this.sessions = sessions;
    }

    /**
     * An offer or subscription from a socket on another pod (which verified its ticket): the owner handles it as
     * for its own sockets and answers {@code {"replies":[...]}} (the messages for the socket). 409 when not owner.
     */
    @Post("/relay")
    @Consumes(MediaType.APPLICATION_JSON)
    public HttpResponse<String> relay(@Nullable @Header("Authorization") String authorization,
                                      @Nullable @Body String body) {
        internal.require(authorization);
        ObjectNode o = JsonBody.object(body);
        UUID m = JsonBody.parseUuid(o.path("meeting_id").asText(""), "meeting_id");
        UUID p = JsonBody.parseUuid(o.path("participant_id").asText(""), "participant_id");
        if (!o.path("transport_generation").canConvertToLong() || !o.path("message").isObject()) {
            throw ApiException.badRequest("invalid_body", "transport_generation and message are required");
        }
        var replies = relay.relayed(m, p, o.get("transport_generation").asLong(), o.path("sfu_pod").asText(null),
                o.path("device_key").asText(null), (ObjectNode) o.get("message"));
        if (replies == null) {
            throw new ApiException(409, "not_owner", "this controller does not own the meeting");
        }
        ObjectNode out = JsonBody.obj();
        var list = out.putArray("replies");
        replies.forEach(list::add);
        return dev.parley.controller.http.Responses.json(200, out);
    }

    /** Owner → a pod with sockets of the meeting: it ended; the sockets get the last events, then are closed. */
    @Post("/meeting-ended")
    @Consumes(MediaType.APPLICATION_JSON)
    public HttpResponse<String> meetingEnded(@Nullable @Header("Authorization") String authorization,
                                             @Nullable @Body String body) {
        internal.require(authorization);
        ObjectNode o = JsonBody.object(body);
        sessions.meetingEnded(JsonBody.parseUuid(o.path("meeting_id").asText(""), "meeting_id"));
        return HttpResponse.noContent();
    }

    /** Owner → a pod with sockets of the meeting: a volatile event for them ({@code participant_id}: only its sockets). */
    @Post("/volatile")
    @Consumes(MediaType.APPLICATION_JSON)
    public HttpResponse<String> volatileEvent(@Nullable @Header("Authorization") String authorization,
                                              @Nullable @Body String body) {
        internal.require(authorization);
        ObjectNode o = JsonBody.object(body);
        UUID m = JsonBody.parseUuid(o.path("meeting_id").asText(""), "meeting_id");
        if (!o.path("event").isObject()) {
            throw ApiException.badRequest("invalid_body", "event must be an object");
        }
        sessions.localVolatile(m, o.hasNonNull("participant_id") ? o.get("participant_id").asText() : null,
                (ObjectNode) o.get("event"));
        return HttpResponse.noContent();
    }

    @Post("/presence")
    @Consumes(MediaType.APPLICATION_JSON)
    public HttpResponse<String> presence(@Nullable @Header("Authorization") String authorization,
                                         @Nullable @Body String body) {
        internal.require(authorization);
        ObjectNode o = JsonBody.object(body);
        UUID m = JsonBody.parseUuid(o.path("meeting_id").asText(""), "meeting_id");
        UUID p = JsonBody.parseUuid(o.path("participant_id").asText(""), "participant_id");
        Presence what = Presence.fromWire(o.path("presence").asText(""));
        if (what == null || !o.path("transport_generation").canConvertToLong()) {
            throw ApiException.badRequest("invalid_body", "presence must be open, closed or left, with transport_generation");
        }
        if (!presence.presence(m, p, o.get("transport_generation").asLong(), what, o.path("pod_url").asText(null))) {
            throw new ApiException(409, "not_owner", "this controller does not own the meeting");
        }
        return HttpResponse.noContent();
    }
}
