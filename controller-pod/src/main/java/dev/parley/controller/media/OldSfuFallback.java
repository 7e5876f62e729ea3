package dev.parley.controller.media;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * SFUs that answered the batch path with 404 (an older version during a rolling upgrade): they get one
 * {@code PUT /grants} per meeting for a while, then the batch path is tried again.
 */
final class OldSfuFallback {
    /** How long an SFU that answered the batch path with 404 gets one request per meeting before we retry it. */
    static final long BATCH_RETRY_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final Map<String, Long> batchUnsupportedSince = new ConcurrentHashMap<>();

    void batchNotFound(String pod) {
        batchUnsupportedSince.put(pod, System.nanoTime());
    }

    boolean batchUnsupported(String pod) {
        Long since = batchUnsupportedSince.get(pod);
        if (since != null && System.nanoTime() - since > BATCH_RETRY_NANOS) {
            batchUnsupportedSince.remove(pod, since); // try the batch path again (the SFU may have been upgraded)
            return false;
        }
        return since != null;
    }
}
