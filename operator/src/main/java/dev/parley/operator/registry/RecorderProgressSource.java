package dev.parley.operator.registry;

import java.util.Optional;

/** Reads a recording job's runner key ({@code /parley/v1/recordings/{jobId}/runner}) as written by the recorder. */
public interface RecorderProgressSource {
    Optional<RecorderProgress> progress(String jobId);

    void removeRunner(String jobId);
}
