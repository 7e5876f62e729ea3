package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.api.ApiException;
import dev.parley.controller.api.JsonBody;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.platform.internal.InternalAuth;
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
 * Non-owner → owner (internal secret): a signaling socket of one of the owner's meetings opened, closed or left
 * on another controller pod. The owner keeps the reconnect grace and the leave for those participants.
 */
@Controller("/internal/v1/signaling")
@Secured(SecurityRule.IS_ANONYMOUS)
@ExecuteOn(TaskExecutors.BLOCKING)
public class PresenceController {
    static final String PATH = "/internal/v1/signaling/presence";
    private final InternalAuth auth;
    private final SignalingSocket socket;

    public PresenceController(ParleyConfig cfg, SignalingSocket socket) {
        this.auth = cfg.internalSecret() == null ? null : new InternalAuth(cfg.internalSecret());
        this.socket = socket;
    }

    @Post("/presence")
    @Consumes(MediaType.APPLICATION_JSON)
    public HttpResponse<String> presence(@Nullable @Header("Authorization") String authorization,
                                         @Nullable @Body String body) {
        if (auth == null || !auth.accepts(authorization)) {
            throw new ApiException(401, "unauthenticated", "internal secret required");
        }
        ObjectNode o = JsonBody.object(body);
        UUID m = JsonBody.parseUuid(o.path("meeting_id").asText(""), "meeting_id");
        UUID p = JsonBody.parseUuid(o.path("participant_id").asText(""), "participant_id");
        SignalingSocket.Presence what = SignalingSocket.Presence.fromWire(o.path("presence").asText(""));
        if (what == null || !o.path("transport_generation").canConvertToLong()) {
            throw ApiException.badRequest("invalid_body", "presence must be open, closed or left, with transport_generation");
        }
        if (!socket.presence(m, p, o.get("transport_generation").asLong(), what)) {
            throw new ApiException(409, "not_owner", "this controller does not own the meeting");
        }
        return HttpResponse.noContent();
    }
}
