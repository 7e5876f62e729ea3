package dev.parley.controller.recording;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.db.Db;
import dev.parley.controller.outbox.Outbox;
import jakarta.inject.Singleton;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.UUID;

/**
 * {@code POST /internal/v1/recordings/{job}/state}: the recorder's state reports into {@code recording_jobs}. A
 * report from a generation lower than the job's is ignored, a terminal state ({@code ready}, {@code partial},
 * {@code failed}) is never left, and the composite's object key becomes the job's {@code object_location}. A
 * terminal state emits {@code recording.<state>} once through the outbox. The answer tells the recorder whether a
 * stop was requested (so a stop reaches it with its next report even if nobody calls its {@code POST /stop}) and
 * whether its SFU is draining ({@code resubscribe}: move to a new transport generation before the SFU leaves).
 */
@Singleton
public class RecorderStateReports {
    private final Db db;
    private final Outbox outbox;
    private final RecorderGrants grants;

    public RecorderStateReports(Db db, Outbox outbox, RecorderGrants grants) {
        this.db = db;
        this.outbox = outbox;
        this.grants = grants;
    }

    public ObjectNode report(UUID jobId, ObjectNode body) {
        long generation = JsonBody.nonNegativeLong(body, "generation", true);
        String state = JsonBody.oneOf(body, "state", true, RecordingStates.ALL.toArray(String[]::new));
        JsonNode missing = body.path("missing_ranges");
        if (!missing.isMissingNode() && !missing.isArray()) {
            throw ApiException.badRequest("invalid_field", "missing_ranges must be an array");
        }
        String composite = body.path("result").path("composite_key").asText(null);
        ObjectNode out = db.tx(c -> {
            UUID meetingId;
            boolean applied;
            try (PreparedStatement ps = c.prepareStatement("UPDATE recording_jobs SET state = ?, generation = ?, "
                    + "missing_ranges = ?::jsonb, object_location = COALESCE(?, object_location), updated_at = now(), "
                    // the retention period runs from here (V4)
                    + "finished_at = CASE WHEN ? THEN now() ELSE finished_at END "
                    + "WHERE job_id = ? AND generation <= ? AND state NOT IN ('ready', 'partial', 'failed') "
                    + "RETURNING meeting_id")) {
                ps.setString(1, state);
                ps.setLong(2, generation);
                ps.setString(3, missing.isArray() ? missing.toString() : "[]");
                ps.setString(4, composite);
                ps.setBoolean(5, RecordingStates.TERMINAL.contains(state));
                ps.setObject(6, jobId);
                ps.setLong(7, generation);
                try (ResultSet rs = ps.executeQuery()) {
                    applied = rs.next();
                    meetingId = applied ? rs.getObject(1, UUID.class) : null;
                }
            }
            ObjectNode o = JsonBody.obj();
            try (PreparedStatement ps = c.prepareStatement("SELECT state, generation, stop_requested FROM recording_jobs "
                    + "WHERE job_id = ?")) {
                ps.setObject(1, jobId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw ApiException.notFound("recording_not_found", "no such recording");
                    }
                    o.put("applied", applied);
                    o.put("state", rs.getString(1));
                    o.put("generation", rs.getLong(2));
                    o.put("stop_requested", rs.getBoolean(3));
                }
            }
            if (applied && RecordingStates.TERMINAL.contains(state)) {
                ObjectNode ev = JsonBody.obj();
                ev.put("recording_job_id", jobId.toString());
                ev.put("state", state);
                ev.put("generation", generation);
                ev.set("missing_ranges", missing.isArray() ? missing : JsonBody.JSON.createArrayNode());
                if (composite != null) {
                    ev.put("object_location", composite);
                }
                outbox.add(c, meetingId, 1, "recording." + state, jobId.toString(), ev);
            }
            return o;
        });
        grants.recheck(jobId);
        out.put("resubscribe", grants.shouldMove(jobId));
        return out;
    }
}
