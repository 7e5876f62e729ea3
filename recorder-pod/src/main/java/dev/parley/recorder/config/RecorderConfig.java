package dev.parley.recorder.config;

import dev.parley.recorder.storage.ObjectKeys;
import dev.parley.recorder.storage.S3Settings;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The recorder's configuration, from environment variables (docs/configuration.md, docs/recording.md). */
public record RecorderConfig(
        String jobId,
        long generation,
        String podName,
        List<String> etcdEndpoints,
        long leaseTtlSeconds,
        S3Settings s3,
        boolean createBucket,
        String controllerInternalUrl,
        String internalSecret,
        String bindAddress,
        int internalPort,
        int segmentSeconds,
        Path spoolDir,
        long bufferBytes,
        String source,
        List<String> rtpTracks,
        long stopWhenIdleSeconds,
        long drainTimeoutSeconds,
        int tileWidth,
        int tileHeight,
        String ffmpeg,
        String ffprobe,
        int sfuSlots,
        String mediaAddress,
        ObjectKeys objectKeys) {

    public static RecorderConfig fromEnv(Map<String, String> env) {
        String job = required(env, "PARLEY_RECORDING_JOB_ID");
        if (!job.matches("[A-Za-z0-9_-]{1,100}")) {
            throw new IllegalArgumentException("PARLEY_RECORDING_JOB_ID must be 1-100 of [A-Za-z0-9_-]");
        }
        long generation = Long.parseLong(required(env, "PARLEY_RECORDING_GENERATION"));
        if (generation < 1) {
            throw new IllegalArgumentException("PARLEY_RECORDING_GENERATION must be >= 1");
        }
        String endpoint = env.get("PARLEY_S3_ENDPOINT");
        S3Settings s3 = new S3Settings(endpoint == null || endpoint.isBlank() ? null : URI.create(endpoint),
                env.getOrDefault("PARLEY_S3_REGION", "us-east-1"), required(env, "PARLEY_S3_BUCKET"),
                env.get("PARLEY_S3_ACCESS_KEY"), env.get("PARLEY_S3_SECRET_KEY"),
                Duration.ofMillis(Long.parseLong(env.getOrDefault("PARLEY_RECORDER_UPLOAD_TIMEOUT_MS", "10000"))));
        ObjectKeys keys;
        try {
            keys = ObjectKeys.of(env.get("PARLEY_S3_PREFIX"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("PARLEY_S3_PREFIX " + e.getMessage(), e);
        }
        String tile = env.getOrDefault("PARLEY_RECORDER_TILE", "640x360");
        String[] wh = tile.split("x");
        List<String> tracks = new ArrayList<>();
        for (String t : env.getOrDefault("PARLEY_RECORDER_RTP_TRACKS", "").split(",")) {
            if (!t.isBlank()) {
                tracks.add(t.trim());
            }
        }
        return new RecorderConfig(job, generation,
                env.getOrDefault("PARLEY_POD_NAME", "recorder-0"),
                List.of(env.getOrDefault("PARLEY_ETCD_ENDPOINTS", "http://127.0.0.1:2379").split(",")),
                Long.parseLong(env.getOrDefault("PARLEY_LEASE_TTL_SECONDS", "5")),
                s3,
                Boolean.parseBoolean(env.getOrDefault("PARLEY_RECORDER_CREATE_BUCKET", "false")),
                env.get("PARLEY_CONTROLLER_INTERNAL_URL"),
                env.get("PARLEY_INTERNAL_SECRET"),
                env.getOrDefault("PARLEY_BIND_ADDRESS", "127.0.0.1"),
                Integer.parseInt(env.getOrDefault("PARLEY_INTERNAL_PORT", "0")),
                Integer.parseInt(env.getOrDefault("PARLEY_RECORDER_SEGMENT_SECONDS", "10")),
                Path.of(env.getOrDefault("PARLEY_RECORDER_SPOOL_DIR",
                        System.getProperty("java.io.tmpdir") + "/parley-recorder")).resolve(job)
                        .resolve(Long.toString(generation)),
                Long.parseLong(env.getOrDefault("PARLEY_RECORDER_BUFFER_BYTES", Long.toString(512L << 20))),
                env.getOrDefault("PARLEY_RECORDER_SOURCE", "rtp-loopback"),
                tracks,
                Long.parseLong(env.getOrDefault("PARLEY_RECORDER_STOP_WHEN_IDLE_SECONDS", "0")),
                Long.parseLong(env.getOrDefault("PARLEY_RECORDER_DRAIN_TIMEOUT_SECONDS", "120")),
                Integer.parseInt(wh[0]), Integer.parseInt(wh[1]),
                env.getOrDefault("PARLEY_FFMPEG", "ffmpeg"),
                env.getOrDefault("PARLEY_FFPROBE", "ffprobe"),
                boundedInt(env, "PARLEY_RECORDER_SFU_SLOTS", 4, 1, 16),
                env.getOrDefault("PARLEY_RECORDER_MEDIA_ADDRESS", env.getOrDefault("PARLEY_BIND_ADDRESS", "127.0.0.1")),
                keys);
    }

    private static int boundedInt(Map<String, String> env, String name, int def, int min, int max) {
        int v = Integer.parseInt(env.getOrDefault(name, Integer.toString(def)));
        if (v < min || v > max) {
            throw new IllegalArgumentException(name + " must be within " + min + ".." + max);
        }
        return v;
    }

    private static String required(Map<String, String> env, String name) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(name + " is required");
        }
        return v;
    }

    /** For the start-up log: everything but secrets. */
    public String describe() {
        return "job=" + jobId + " generation=" + generation + " pod=" + podName + " etcd=" + etcdEndpoints
                + " s3=" + s3 + " prefix=" + objectKeys + " controller=" + controllerInternalUrl + " internalSecret="
                + (internalSecret == null ? "unset" : "set") + " internal=" + bindAddress + ":" + internalPort
                + " segmentSeconds=" + segmentSeconds + " spool=" + spoolDir + " bufferBytes=" + bufferBytes
                + " source=" + source + " tracks=" + rtpTracks + " stopWhenIdleSeconds=" + stopWhenIdleSeconds
                + " drainTimeoutSeconds=" + drainTimeoutSeconds + " tile=" + tileWidth + "x" + tileHeight
                + " sfuSlots=" + sfuSlots + " media=" + mediaAddress;
    }

    @Override
    public String toString() {
        return describe();
    }
}
