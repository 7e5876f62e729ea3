package dev.parley.controller.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.auth.Caller;
import dev.parley.controller.command.CommandService;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.http.Responses;
import dev.parley.controller.logging.JoinLog;
import dev.parley.controller.media.GrantService;
import dev.parley.controller.meeting.MeetingService;
import dev.parley.controller.participant.SnapshotService;
import dev.parley.controller.observability.RequestMetrics;
import dev.parley.controller.participant.ParticipantService;
import dev.parley.controller.control.SessionHub;
import dev.parley.controller.transport.TransportService;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.micronaut.security.annotation.Secured;
import io.micronaut.security.authentication.Authentication;
import io.micronaut.security.rules.SecurityRule;

import java.util.UUID;

/** The public REST API (docs/api.md). Bodies are parsed by {@link JsonBody} so every error is ours. */
@Controller("/v1/meetings")
@Secured(SecurityRule.IS_AUTHENTICATED)
@ExecuteOn(TaskExecutors.BLOCKING)
public class MeetingsController {
    private static final String KEY = "Idempotency-Key";

    private final MeetingService meetings;
    private final ParticipantService participants;
    private final TransportService transports;
    private final CommandService commands;
    private final SnapshotService snapshots;
    private final GrantService grants;
    private final SessionHub sessions;
    private final OwnerCalls owner;
    private final RequestMetrics metrics;

    public MeetingsController(MeetingService meetings, ParticipantService participants, TransportService transports,
                              CommandService commands, SnapshotService snapshots, GrantService grants,
                              SessionHub sessions, OwnerCalls owner, RequestMetrics metrics) {
        this.meetings = meetings;
        this.participants = participants;
        this.transports = transports;
        this.commands = commands;
        this.snapshots = snapshots;
        this.grants = grants;
        this.sessions = sessions;
        this.owner = owner;
        this.metrics = metrics;
    }

    /** {@code ids}: 1..{@link ParticipantService#MAX_ROSTER_IDS} participant ids, comma-separated (repeats count once). */
    private static java.util.List<UUID> rosterIds(String csv) {
        String[] parts = csv.split(",", -1);
        if (csv.isEmpty() || parts.length > ParticipantService.MAX_ROSTER_IDS) {
            throw ApiException.badRequest("invalid_parameter", "ids must name 1.." + ParticipantService.MAX_ROSTER_IDS
                    + " participant ids, comma-separated").with("parameter", "ids");
        }
        java.util.Set<UUID> out = new java.util.LinkedHashSet<>();
        for (String p : parts) {
            try {
                if (p.length() != 36) {
                    throw new IllegalArgumentException("not a UUID");
                }
                out.add(UUID.fromString(p));
            } catch (IllegalArgumentException e) {
                throw ApiException.badRequest("invalid_parameter", "ids must be participant ids (UUIDs), comma-separated")
                        .with("parameter", "ids");
            }
        }
        return java.util.List.copyOf(out);
    }

    private static UUID id(String s, String name) {
        return JsonBody.parseUuid(s, name);
    }

    @Post
    @Consumes(MediaType.APPLICATION_JSON)
    public HttpResponse<String> create(@Nullable @Header(KEY) String key, @Nullable @Body String body,
                                       Authentication auth) {
        return metrics.time("create_meeting", () -> {
            Caller caller = Caller.of(auth);
            String k = JsonBody.idempotencyKey(key);
            ObjectNode req = JsonBody.object(body);
            return Responses.json(201, meetings.create(caller, k, req));
        });
    }

    @Get("/{meetingId}")
    public HttpResponse<String> get(@PathVariable String meetingId, Authentication auth) {
        return metrics.time("get_meeting", () ->
                Responses.json(200, meetings.get(Caller.of(auth), id(meetingId, "meeting_id"))));
    }

    @Post("/{meetingId}/participants")
    @Consumes(MediaType.APPLICATION_JSON)
    public HttpResponse<String> join(HttpRequest<?> request, @PathVariable String meetingId,
                                     @Nullable @Header(KEY) String key, @Nullable @Body String body,
                                     Authentication auth) {
        return metrics.time("join", () -> {
            Caller caller = Caller.of(auth);
            UUID m = id(meetingId, "meeting_id");
            String k = JsonBody.idempotencyKey(key);
            ObjectNode req = JsonBody.object(body);
            return owner.run(request, body, caller, m, epoch -> {
                ParticipantService.Joined j = participants.join(caller, m, epoch, k, req);
                JoinLog.joined(j.answer(), j.replay());
                sessions.publish(m, j.events());
                return Responses.json(201, j.answer());
            });
        });
    }

    @Get("/{meetingId}/participants")
    public HttpResponse<String> roster(@PathVariable String meetingId, @Nullable @QueryValue String cursor,
                                       @Nullable @QueryValue String limit, @Nullable @QueryValue String ids,
                                       Authentication auth) {
        return metrics.time("roster", () -> {
            if (ids != null) {
                if (cursor != null || limit != null) {
                    throw ApiException.badRequest("invalid_parameter", "ids is not paged: no cursor or limit with it")
                            .with("parameter", "ids");
                }
                return Responses.json(200, participants.rosterOf(Caller.of(auth), id(meetingId, "meeting_id"), rosterIds(ids)));
            }
            int l = 100;
            if (limit != null) {
                try {
                    l = Integer.parseInt(limit);
                } catch (NumberFormatException e) {
                    l = -1;
                }
                if (l < 1 || l > 500) {
                    throw ApiException.badRequest("invalid_parameter", "limit must be within 1..500").with("parameter", "limit");
                }
            }
            return Responses.json(200, participants.roster(Caller.of(auth), id(meetingId, "meeting_id"), cursor, l));
        });
    }

    @Post("/{meetingId}/participants/{participantId}/transports")
    @Consumes(MediaType.APPLICATION_JSON)
    public HttpResponse<String> transport(HttpRequest<?> request, @PathVariable String meetingId,
                                          @PathVariable String participantId, @Nullable @Header(KEY) String key,
                                          @Nullable @Body String body, Authentication auth) {
        return metrics.time("transport", () -> {
            Caller caller = Caller.of(auth);
            UUID m = id(meetingId, "meeting_id");
            UUID p = id(participantId, "participant_id");
            String k = JsonBody.idempotencyKey(key);
            ObjectNode req = JsonBody.object(body);
            return owner.run(request, body, caller, m, epoch -> {
                TransportService.Reservation out = transports.reserve(caller, m, p, epoch, k, req);
                grants.afterTransport(m, out.row());
                return Responses.json(200, out.answer());
            });
        });
    }

    @Post("/{meetingId}/commands")
    @Consumes(MediaType.APPLICATION_JSON)
    public HttpResponse<String> command(HttpRequest<?> request, @PathVariable String meetingId,
                                        @Nullable @Header(KEY) String key, @Nullable @Body String body,
                                        Authentication auth) {
        return metrics.time("command", () -> {
            Caller caller = Caller.of(auth);
            UUID m = id(meetingId, "meeting_id");
            String k = JsonBody.idempotencyKey(key);
            ObjectNode req = JsonBody.object(body);
            return owner.run(request, body, caller, m, epoch -> {
                CommandService.Committed c = commands.execute(caller, m, epoch, k, req);
                if (c.replay()) {
                    metrics.duplicate();
                }
                sessions.publish(m, c.events());
                grants.afterCommit(m, c);
                return Responses.json(c.replay() ? 200 : 201, c.answer());
            });
        });
    }

    @Get("/{meetingId}/commands/{commandId}")
    public HttpResponse<String> commandState(@PathVariable String meetingId, @PathVariable String commandId,
                                             Authentication auth) {
        return metrics.time("get_command", () -> Responses.json(200,
                commands.get(Caller.of(auth), id(meetingId, "meeting_id"), id(commandId, "command_id"))));
    }

    @Get("/{meetingId}/snapshot")
    public HttpResponse<String> snapshot(@PathVariable String meetingId, Authentication auth) {
        return metrics.time("snapshot", () ->
                Responses.json(200, snapshots.snapshot(Caller.of(auth), id(meetingId, "meeting_id"))));
    }
}
