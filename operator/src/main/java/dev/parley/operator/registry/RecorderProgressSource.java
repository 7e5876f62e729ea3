package dev.parley.operator.registry;

import java.util.List;
import java.util.Optional;

/**
 * The recording part of the registry: a job's runner key ({@code /parley/v1/recordings/{jobId}/runner}) as
 * written by the recorder, and the controller's request keys ({@code .../{jobId}/request}).
 */
public interface RecorderProgressSource {
    /** Every readable request key; unreadable ones are logged and skipped. */
    List<RecordingRequest> requests();

    Optional<RecorderProgress> progress(String jobId);

    void removeRunner(String jobId);
}
