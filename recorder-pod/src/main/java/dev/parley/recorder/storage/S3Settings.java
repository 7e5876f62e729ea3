package dev.parley.recorder.storage;

import java.net.URI;
import java.time.Duration;

/** Where and how the recorder talks to S3-compatible storage. */
public record S3Settings(URI endpoint, String region, String bucket, String accessKey, String secretKey,
                         Duration attemptTimeout) {
    public S3Settings {
        if (bucket == null || bucket.isBlank()) {
            throw new IllegalArgumentException("PARLEY_S3_BUCKET is required");
        }
    }

    @Override
    public String toString() {
        // never print the secret key
        return "S3Settings[endpoint=" + endpoint + ", region=" + region + ", bucket=" + bucket
                + ", accessKey=" + (accessKey == null ? "<default chain>" : accessKey) + ", attemptTimeout="
                + attemptTimeout + "]";
    }
}
