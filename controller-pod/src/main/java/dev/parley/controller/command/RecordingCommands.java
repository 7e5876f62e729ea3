package dev.parley.controller.command;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.command.store.RecordingJobWrites;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.outbox.Outbox;
import jakarta.inject.Singleton;

import java.sql.SQLException;
import java.util.UUID;

/** Recording commands: a job is requested or asked to stop here; the recording package runs it. */
@Singleton
final class RecordingCommands implements CommandHandler {
    private final Outbox outbox;

    RecordingCommands(Outbox outbox) {
        this.outbox = outbox;
    }

    @Override
    public void run(CommandType type, CommandContext x, ObjectNode answer) throws SQLException {
        switch (type) {
            case START_RECORDING -> start(x, answer);
            case STOP_RECORDING -> stop(x, answer);
            default -> throw new IllegalStateException(type.wire());
        }
    }

    private void start(CommandContext x, ObjectNode answer) throws SQLException {
        x.requireOpen();
        if ("e2ee".equals(x.m.encryptionMode())) {
            throw ApiException.conflict("recording_not_allowed_e2ee",
                    "cloud recording is not available in end-to-end encrypted meetings");
        }
        UUID job = UUID.randomUUID();
        if (!RecordingJobWrites.request(x.c, job, x.meetingId(), x.actor.principalId())) {
            throw ApiException.conflict("recording_already_active", "a recording is already running");
        }
        answer.put("recording_job_id", job.toString());
        ObjectNode ev = JsonBody.obj();
        ev.put("recording_job_id", job.toString());
        ev.put("state", "requested");
        x.defer("recording_state", ev, null, null);
        outbox.add(x.c, x.meetingId(), 1, "recording.requested", job.toString(), ev);
    }

    private void stop(CommandContext x, ObjectNode answer) throws SQLException {
        UUID job = RecordingJobWrites.requestStop(x.c, x.meetingId());
        if (job == null) {
            throw ApiException.conflict("no_active_recording", "no recording is running");
        }
        answer.put("recording_job_id", job.toString());
        ObjectNode ev = JsonBody.obj();
        ev.put("recording_job_id", job.toString());
        ev.put("stop_requested", true);
        x.defer("recording_state", ev, null, null);
        outbox.add(x.c, x.meetingId(), 1, "recording.stop_requested", job.toString(), ev);
    }
}
