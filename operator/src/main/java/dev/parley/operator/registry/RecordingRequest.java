package dev.parley.operator.registry;

/**
 * The controller's request for a recorder ({@code /parley/v1/recordings/{jobId}/request}, docs/recording.md):
 * the operator creates the job's RecordingJob from it.
 */
public record RecordingRequest(String jobId, String meetingId, String tenantId, String region, String requestedAt,
                               boolean stopRequested) {
}
