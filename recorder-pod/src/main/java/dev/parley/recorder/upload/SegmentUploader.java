package dev.parley.recorder.upload;

import dev.parley.recorder.manifest.Manifest;
import dev.parley.recorder.manifest.ManifestStore;
import dev.parley.recorder.manifest.StaleGenerationException;
import dev.parley.recorder.metrics.RecorderMetrics;
import dev.parley.recorder.segment.ClosedSegment;
import dev.parley.recorder.storage.ObjectKeys;
import dev.parley.recorder.storage.ObjectStore;
import dev.parley.recorder.storage.Sha256;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves closed segments from the local buffer (spool dir, bounded in bytes) to S3, then into the manifest.
 *
 * <p>A segment enters the manifest only after its upload is confirmed. A failed or timed-out PUT is
 * resolved by a HEAD on the same key (present with our sha256 and size = done), otherwise retried with
 * backoff under the same key: never re-uploaded under a new name. During a storage outage segments wait
 * on disk; when the buffer is full a new segment is dropped and its exact time range recorded as lost.
 */
public final class SegmentUploader implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentUploader.class);

    private final ObjectStore store;
    private final ManifestStore manifest;
    private final ObjectKeys keys;
    private final String jobId;
    private final long generation;
    private final long maxBufferBytes;
    private final RecorderMetrics metrics;
    private final LongSupplier clock;
    private final long backoffMinMs;
    private final long backoffMaxMs;
    private final Runnable onFenced;
    private final LinkedBlockingDeque<ClosedSegment> queue = new LinkedBlockingDeque<>();
    private final AtomicLong bufferedBytes = new AtomicLong();
    private final List<Manifest.TimeRange> pendingLost = new ArrayList<>();
    private final Thread worker;
    private volatile boolean stopped;
    private volatile boolean fenced;
    private volatile ClosedSegment inFlight;

    public SegmentUploader(ObjectStore store, ManifestStore manifest, ObjectKeys keys, String jobId, long generation,
                           long maxBufferBytes, RecorderMetrics metrics, LongSupplier clock,
                           long backoffMinMs, long backoffMaxMs, Runnable onFenced) {
        this.store = store;
        this.manifest = manifest;
        this.keys = keys;
        this.jobId = jobId;
        this.generation = generation;
        this.maxBufferBytes = maxBufferBytes;
        this.metrics = metrics;
        this.clock = clock;
        this.backoffMinMs = backoffMinMs;
        this.backoffMaxMs = backoffMaxMs;
        this.onFenced = onFenced;
        metrics.gauge(RecorderMetrics.BUFFER_SEGMENTS, "", () -> queue.size() + (inFlight == null ? 0 : 1));
        metrics.gauge(RecorderMetrics.BUFFER_BYTES, "", bufferedBytes::get);
        worker = Thread.ofPlatform().name("uploader").unstarted(this::run);
    }

    public void start() {
        worker.start();
    }

    /** Called when a segment file is complete. Never blocks. */
    public void submit(ClosedSegment seg) {
        long size;
        try {
            size = Files.size(seg.file());
        } catch (IOException e) {
            lose(seg, "segment file unreadable: " + e.getMessage());
            return;
        }
        if (size == 0) {
            lose(seg, "ffmpeg wrote an empty segment");
            return;
        }
        if (fenced) {
            deleteQuietly(seg);
            return;
        }
        long after = bufferedBytes.addAndGet(size);
        if (after > maxBufferBytes) {
            bufferedBytes.addAndGet(-size);
            lose(seg, "local buffer full (" + maxBufferBytes + " bytes) during a storage outage");
            return;
        }
        queue.add(seg);
    }

    private void lose(ClosedSegment seg, String reason) {
        LOG.warn("track {} segment {} [{}..{}) lost: {}", seg.trackId(), seg.seq(), seg.startMs(), seg.endMs(), reason);
        metrics.inc(RecorderMetrics.SEGMENTS_DROPPED, "track=\"" + seg.trackId() + "\"", 1);
        synchronized (pendingLost) {
            pendingLost.add(Manifest.TimeRange.of(seg.trackId(), seg.startMs(), seg.endMs(), reason));
        }
        deleteQuietly(seg);
    }

    private void run() {
        while (!fenced) {
            ClosedSegment seg;
            try {
                seg = queue.poll(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (seg == null) {
                if (stopped) {
                    return;
                }
                continue;
            }
            inFlight = seg;
            if (!process(seg)) {
                return; // stopped or fenced while retrying: seg stays "in flight", counted by drain()
            }
            inFlight = null;
        }
    }

    /** Uploads one segment and records it; true when done, false when interrupted by stop/fence. */
    private boolean process(ClosedSegment seg) {
        String key = keys.segment(jobId, generation, seg.trackId(), seg.seq());
        String sha;
        long size;
        try {
            sha = Sha256.of(seg.file());
            size = Files.size(seg.file());
        } catch (IOException e) {
            lose(seg, "segment file unreadable: " + e.getMessage());
            return true;
        }
        int attempt = 0;
        while (true) {
            if (fenced || (stopped && hardStop)) {
                return false;
            }
            if (upload(key, seg, sha, size)) {
                break;
            }
            metrics.inc(RecorderMetrics.UPLOAD_RETRIES, 1);
            sleep(backoff(attempt++));
        }
        Manifest.SegmentEntry entry = new Manifest.SegmentEntry(seg.trackId(), generation, seg.seq(), key,
                seg.startMs(), seg.endMs(), sha, size);
        attempt = 0;
        while (true) {
            if (fenced || (stopped && hardStop)) {
                return false;
            }
            List<Manifest.TimeRange> lost;
            synchronized (pendingLost) {
                lost = List.copyOf(pendingLost);
            }
            try {
                manifest.update(m -> {
                    m.segments.add(entry);
                    m.lost.addAll(lost);
                }, clock.getAsLong());
                synchronized (pendingLost) {
                    pendingLost.removeAll(lost);
                }
                break;
            } catch (StaleGenerationException e) {
                LOG.warn("generation {} is fenced, stopping uploads: {}", generation, e.getMessage());
                fenced = true;
                onFenced.run();
                return false;
            } catch (RuntimeException e) {
                LOG.warn("manifest update for {} failed (attempt {}): {}", key, attempt + 1, e.toString());
                metrics.inc(RecorderMetrics.UPLOAD_RETRIES, 1);
                sleep(backoff(attempt++));
            }
        }
        metrics.inc(RecorderMetrics.SEGMENTS_UPLOADED, "track=\"" + seg.trackId() + "\"", 1);
        metrics.inc(RecorderMetrics.UPLOAD_BYTES, size);
        bufferedBytes.addAndGet(-size);
        deleteQuietly(seg);
        return true;
    }

    private boolean upload(String key, ClosedSegment seg, String sha, long size) {
        try {
            store.putFile(key, seg.file(), sha, "video/webm");
            return true;
        } catch (RuntimeException e) {
            LOG.warn("upload of {} failed: {}", key, e.toString());
        }
        // the PUT may have landed even though we saw an error (timeout): check the same key
        try {
            var head = store.head(key);
            if (head.isPresent() && sha.equals(head.get().sha256()) && head.get().size() == size) {
                LOG.info("upload of {} confirmed by HEAD after an error", key);
                return true;
            }
        } catch (RuntimeException e) {
            LOG.debug("HEAD {} failed: {}", key, e.toString());
        }
        return false;
    }

    private volatile boolean hardStop;

    /**
     * Waits until every buffered segment is uploaded and recorded, or the deadline passes; what is left is
     * recorded as lost (if the manifest can still be written) and returned.
     */
    public List<Manifest.TimeRange> drain(long deadlineMs) {
        stopped = true;
        while (System.currentTimeMillis() < deadlineMs && !fenced && (!queue.isEmpty() || inFlight != null)) {
            sleep(100);
        }
        hardStop = true;
        worker.interrupt();
        try {
            worker.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<ClosedSegment> left = new ArrayList<>();
        if (inFlight != null) {
            left.add(inFlight);
        }
        queue.drainTo(left);
        for (ClosedSegment seg : left) {
            synchronized (pendingLost) {
                pendingLost.add(Manifest.TimeRange.of(seg.trackId(), seg.startMs(), seg.endMs(),
                        "upload did not complete before finalize"));
            }
            metrics.inc(RecorderMetrics.SEGMENTS_DROPPED, "track=\"" + seg.trackId() + "\"", 1);
        }
        synchronized (pendingLost) {
            List<Manifest.TimeRange> out = List.copyOf(pendingLost);
            pendingLost.clear();
            return out;
        }
    }

    public boolean fenced() {
        return fenced;
    }

    private long backoff(int attempt) {
        return Math.min(backoffMaxMs, backoffMinMs << Math.min(attempt, 16));
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void deleteQuietly(ClosedSegment seg) {
        try {
            Files.deleteIfExists(seg.file());
        } catch (IOException e) {
            LOG.debug("cannot delete {}: {}", seg.file(), e.toString());
        }
    }

    @Override
    public void close() {
        stopped = true;
        hardStop = true;
        worker.interrupt();
    }
}
