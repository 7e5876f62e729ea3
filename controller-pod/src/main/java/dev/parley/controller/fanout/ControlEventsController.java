package dev.parley.controller.fanout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.control.ControlEvent;
import dev.parley.controller.signaling.SessionRegistry;
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

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Relay leader → every controller pod (internal secret): committed control events of meetings, for this pod's
 * signaling sockets ({@link SessionRegistry#fanIn}: in order, once per socket, gaps filled from the log).
 * Body: {@code {"meetings":[{meeting_id, epoch, seq, events:[{seq, event_id, type, payload, audience?}]}]}},
 * {@code seq} being the meeting's sequence the events were read at. Answer: {@code {"interest":[meeting ids]}}, the
 * meetings this pod has sockets of that it does not own (it is sent only those).
 */
@Controller("/internal/v1")
@Secured(SecurityRule.IS_ANONYMOUS)
@ExecuteOn(TaskExecutors.BLOCKING)
public class ControlEventsController {
    public static final String PATH = "/internal/v1/control-events";
    private final InternalCaller internal;
    private final SessionRegistry sessions;

    public ControlEventsController(InternalCaller internal, SessionRegistry sessions) {
        this.internal = internal;
        this.sessions = sessions;
    }

    @Post("/control-events")
    @Consumes(MediaType.APPLICATION_JSON)
    public HttpResponse<String> controlEvents(@Nullable @Header("Authorization") String authorization,
                                              @Nullable @Body String body) {
        internal.require(authorization);
        ObjectNode root = JsonBody.object(body);
        JsonNode meetings = root.get("meetings");
        if (meetings == null || !meetings.isArray()) {
            throw ApiException.badRequest("invalid_body", "meetings must be an array");
        }
        record Batch(UUID meetingId, long epoch, long head, List<ControlEvent> events) {
        }
        // everything is parsed before anything is delivered: a malformed batch delivers nothing
        List<Batch> batches = new ArrayList<>(meetings.size());
        for (JsonNode m : meetings) {
            UUID id = JsonBody.parseUuid(m.path("meeting_id").asText(""), "meeting_id");
            if (!m.path("epoch").canConvertToLong() || !m.path("seq").canConvertToLong()
                    || (m.has("events") && !m.get("events").isArray())) {
                throw ApiException.badRequest("invalid_body", "epoch and seq are integers, events an array");
            }
            long epoch = m.get("epoch").asLong();
            List<ControlEvent> events = new ArrayList<>();
            long prev = Long.MIN_VALUE;
            for (JsonNode e : m.path("events")) {
                if (!e.path("seq").canConvertToLong() || !e.path("type").isTextual() || !e.path("payload").isObject()) {
                    throw ApiException.badRequest("invalid_body", "events need seq, type and an object payload");
                }
                long seq = e.get("seq").asLong();
                if (seq <= prev) {
                    throw ApiException.badRequest("invalid_body", "events must be in ascending seq order");
                }
                prev = seq;
                UUID audience = e.hasNonNull("audience") ? JsonBody.parseUuid(e.get("audience").asText(), "audience") : null;
                events.add(new ControlEvent(id, epoch, seq, JsonBody.parseUuid(e.path("event_id").asText(""), "event_id"),
                        e.get("type").asText(), (ObjectNode) e.get("payload"), audience));
            }
            batches.add(new Batch(id, epoch, m.get("seq").asLong(), events));
        }
        for (Batch b : batches) {
            sessions.fanIn(b.meetingId(), b.epoch(), b.head(), b.events());
        }
        // the answer is this pod's interest: what the next batches must carry
        ObjectNode out = JsonBody.obj();
        var interest = out.putArray("interest");
        sessions.remoteMeetings().forEach(m -> interest.add(m.toString()));
        return dev.parley.controller.http.Responses.json(200, out);
    }
}
