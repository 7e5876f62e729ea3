package dev.parley.recorder.state;

import dev.parley.recorder.manifest.Manifest;

/**
 * Tells the controller where the job is. The manifest in S3 is the durable record; this is the push so the
 * controller can update its recording_jobs row (and the operator the RecordingJob status) without polling.
 */
public interface JobStateReporter {
    /** Best effort, must not block the recording for long. {@code manifest} is a snapshot. */
    void report(Manifest manifest);
}
