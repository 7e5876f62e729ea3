package dev.parley.recorder.manifest;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The job's manifest as stored in S3 (snake_case JSON). All media times are epoch milliseconds on the
 * recorders' clocks, anchored at the first RTP packet each generation received for a track.
 * Mutable on purpose: only {@link ManifestStore} changes it, under its lock.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public final class Manifest {
    public String jobId;
    /** The generation that wrote this copy. */
    public long generation;
    public String pod;
    public JobState state = JobState.REQUESTED;
    public List<GenerationRun> generations = new ArrayList<>();
    public Map<String, TrackInfo> tracks = new TreeMap<>();
    /** Confirmed segments only: uploaded and verified (HEAD key + sha256) before being added. */
    public List<SegmentEntry> segments = new ArrayList<>();
    /** Media the recorder knows it could not keep (buffer overflow, upload given up), with the reason. */
    public List<TimeRange> lost = new ArrayList<>();
    /** Set by the finalizer: every range missing from the result, per track. */
    public List<TimeRange> missingRanges = new ArrayList<>();
    public Result result;
    public String failureReason;
    public long updatedAtMs;
    /** Incremented on every write by the owning generation. */
    public long revision;

    public record GenerationRun(long generation, String pod, long startedAtMs, Long stoppedAtMs) {
    }

    public record TrackInfo(String trackId, String kind, String codec) {
    }

    public record SegmentEntry(String trackId, long generation, long seq, String key, long startMs, long endMs,
                               String sha256, long size) {
    }

    /** A half-open range [fromMs, toMs) of one track; offsets are relative to the recording's first media. */
    public record TimeRange(String trackId, long fromMs, long toMs, Long fromOffsetMs, Long toOffsetMs,
                            String reason) {
        public TimeRange {
            if (toMs < fromMs) {
                throw new IllegalArgumentException("range ends before it starts: " + fromMs + ".." + toMs);
            }
        }

        public static TimeRange of(String trackId, long fromMs, long toMs, String reason) {
            return new TimeRange(trackId, fromMs, toMs, null, null, reason);
        }

        public TimeRange withOrigin(long originMs) {
            return new TimeRange(trackId, fromMs, toMs, fromMs - originMs, toMs - originMs, reason);
        }

        public long durationMs() {
            return toMs - fromMs;
        }
    }

    public record Result(String compositeKey, String compositeSha256, long compositeSize, double compositeDurationS,
                         Map<String, String> trackKeys) {
    }

    public Manifest copy() {
        return ManifestCodec.decode(ManifestCodec.encode(this));
    }
}
