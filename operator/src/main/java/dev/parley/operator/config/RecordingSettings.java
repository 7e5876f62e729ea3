package dev.parley.operator.config;

/**
 * Where the RecordingJobs that the operator creates from the controller's request keys go, and their output.
 * Without a bucket the bridge is off (RecordingJob.spec.output.bucket is required).
 */
public record RecordingSettings(String namespace, String bucket, String prefix, String endpoint, String credentialsSecret) {
    public boolean enabled() {
        return bucket != null && !bucket.isBlank();
    }
}
