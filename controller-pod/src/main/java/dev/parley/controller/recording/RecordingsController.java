package dev.parley.controller.recording;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.http.Responses;
import dev.parley.controller.auth.Caller;
import dev.parley.controller.db.Db;
import dev.parley.controller.meeting.MeetingRow;
import dev.parley.controller.meeting.MeetingService;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.micronaut.security.annotation.Secured;
import io.micronaut.security.authentication.Authentication;
import io.micronaut.security.rules.SecurityRule;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/** Recording jobs as the controller records them (the recorder and operator advance their state). */
@Controller("/v1")
@Secured(SecurityRule.IS_AUTHENTICATED)
@ExecuteOn(TaskExecutors.BLOCKING)
public class RecordingsController {
    private static final String COLS = "job_id, meeting_id, state, generation, stop_requested, missing_ranges::text, "
            + "object_location, created_at, updated_at";
    /** {@link #COLS} of the job {@code j}, for queries that join {@code meetings m}. */
    private static final String LIST_COLS = "j.job_id, j.meeting_id, j.state, j.generation, j.stop_requested, "
            + "j.missing_ranges::text, j.object_location, j.created_at, j.updated_at";
    private final Db db;
    private final RecordingStorage storage;

    public RecordingsController(Db db, RecordingStorage storage) {
        this.db = db;
        this.storage = storage;
    }

    /**
     * The meeting's recording jobs for anyone of its tenant (the in-meeting indicator: states, no links); the
     * object key ({@code download_location}) only for the hosts of each job ({@link RecordingHosts}).
     */
    @Get("/meetings/{meetingId}/recordings")
    public HttpResponse<String> list(@PathVariable String meetingId, Authentication auth) {
        Caller caller = Caller.of(auth);
        UUID m = JsonBody.parseUuid(meetingId, "meeting_id");
        return Responses.json(200, db.readSnapshot(c -> {
            MeetingService.requireTenant(MeetingRow.load(c, m, false), caller);
            ObjectNode out = JsonBody.obj();
            ArrayNode items = out.putArray("recordings");
            // the object key is the hosts' (as the download is); everyone else of the tenant sees the states
            try (PreparedStatement ps = c.prepareStatement("SELECT " + LIST_COLS + ", " + RecordingHosts.IS_HOST
                    + " FROM recording_jobs j JOIN meetings m ON m.meeting_id = j.meeting_id WHERE j.meeting_id = ? "
                    + "ORDER BY j.created_at")) {
                ps.setObject(RecordingHosts.bind(ps, 1, caller.principalId()), m);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ObjectNode row = row(rs);
                        if (!rs.getBoolean(10)) {
                            row.remove("download_location");
                        }
                        items.add(row);
                    }
                }
            }
            return out;
        }));
    }

    /**
     * One job with, for hosts, a presigned download link to the composite (valid
     * {@code PARLEY_RECORDING_DOWNLOAD_TTL_SECONDS}). Other tenants get 404 (existence is not revealed); other
     * people of the tenant get 403 {@code not_a_host}.
     */
    @Get("/recordings/{jobId}")
    public HttpResponse<String> get(@PathVariable String jobId, Authentication auth) {
        Caller caller = Caller.of(auth);
        UUID job = JsonBody.parseUuid(jobId, "job_id");
        ObjectNode o = db.readSnapshot(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLS + " FROM recording_jobs WHERE job_id = ?")) {
                ps.setObject(1, job);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw ApiException.notFound("recording_not_found", "no such recording");
                    }
                    ObjectNode row = row(rs);
                    UUID meetingId = rs.getObject(2, UUID.class);
                    tenantCheck(c, meetingId, caller);
                    if (!RecordingHosts.isHost(c, job, meetingId, caller.principalId())) {
                        throw ApiException.forbidden("not_a_host", "only the meeting's hosts may see a recording and "
                                + "download it");
                    }
                    return row;
                }
            }
        });
        String key = o.path("download_location").asText(null);
        var link = RecordingStates.DOWNLOADABLE.contains(o.path("state").asText()) ? storage.downloadLink(key)
                : java.util.Optional.<RecordingStorage.Link>empty();
        if (link.isPresent()) {
            o.put("download_url", link.get().url());
            o.put("download_expires_at", link.get().expiresAt().toString());
        } else {
            o.putNull("download_url");
            o.putNull("download_expires_at");
        }
        return Responses.json(200, o);
    }

    private static void tenantCheck(Connection c, UUID meetingId, Caller caller) throws SQLException {
        try {
            MeetingService.requireTenant(MeetingRow.load(c, meetingId, false), caller);
        } catch (ApiException e) {
            throw ApiException.notFound("recording_not_found", "no such recording");
        }
    }

    private static ObjectNode row(ResultSet rs) throws SQLException {
        ObjectNode o = JsonBody.obj();
        o.put("recording_job_id", rs.getObject(1, UUID.class).toString());
        o.put("meeting_id", rs.getObject(2, UUID.class).toString());
        o.put("state", rs.getString(3));
        o.put("generation", rs.getInt(4));
        o.put("stop_requested", rs.getBoolean(5));
        try {
            o.set("missing_ranges", JsonBody.JSON.readTree(rs.getString(6)));
        } catch (Exception e) {
            o.putArray("missing_ranges");
        }
        if (rs.getString(7) != null) {
            o.put("download_location", rs.getString(7));
        } else {
            o.putNull("download_location");
        }
        o.put("created_at", rs.getTimestamp(8).toInstant().toString());
        o.put("updated_at", rs.getTimestamp(9).toInstant().toString());
        return o;
    }
}
