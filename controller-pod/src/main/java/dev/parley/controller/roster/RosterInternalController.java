package dev.parley.controller.roster;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.http.Responses;
import dev.parley.controller.db.Db;
import dev.parley.controller.meeting.MeetingRow;
import dev.parley.controller.peer.InternalCaller;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.micronaut.security.annotation.Secured;
import io.micronaut.security.rules.SecurityRule;

import java.util.UUID;

/**
 * Operator endpoints of the roster read model (shared internal secret, like the other {@code /internal/v1} routes):
 * a full rebuild from the retained outbox events, of one meeting or of all. Any pod may run them (the per-meeting
 * lock in {@link RosterProjector} keeps them apart from the background projection).
 */
@Controller("/internal/v1")
@Secured(SecurityRule.IS_ANONYMOUS)
@ExecuteOn(TaskExecutors.BLOCKING)
public class RosterInternalController {
    private final InternalCaller internal;
    private final RosterProjector projector;
    private final Db db;

    public RosterInternalController(InternalCaller internal, RosterProjector projector, Db db) {
        this.internal = internal;
        this.projector = projector;
        this.db = db;
    }

    /** Rebuilds one meeting's roster: {@code {meeting_id, events}} (events applied), 404 for an unknown meeting. */
    @Post("/meetings/{meetingId}/roster/rebuild")
    public HttpResponse<String> rebuild(@Nullable @Header("Authorization") String authorization,
                                        @PathVariable String meetingId) {
        internal.require(authorization);
        UUID m = JsonBody.parseUuid(meetingId, "meeting_id");
        db.read(c -> MeetingRow.load(c, m, false)); // 404 meeting_not_found
        int events = projector.rebuild(m);
        ObjectNode out = JsonBody.obj();
        out.put("meeting_id", m.toString());
        out.put("events", events);
        return Responses.json(200, out);
    }

    /** Rebuilds every meeting's roster, one meeting per transaction: {@code {meetings, events}}. */
    @Post("/roster/rebuild")
    public HttpResponse<String> rebuildAll(@Nullable @Header("Authorization") String authorization) {
        internal.require(authorization);
        RosterProjector.Rebuilt r = projector.rebuildAll();
        ObjectNode out = JsonBody.obj();
        out.put("meetings", r.meetings());
        out.put("events", r.events());
        return Responses.json(200, out);
    }

}
