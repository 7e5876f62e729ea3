package dev.parley.recorder.storage;

import java.nio.charset.StandardCharsets;

/**
 * The names of everything the recorder writes, all under one key prefix ({@code PARLEY_S3_PREFIX}, from
 * {@code RecordingJob.spec.output.prefix}): {@code {prefix}{job}/{g}/{track}/{seq}} segments,
 * {@code {prefix}{job}/manifest/{g:020d}.json} manifests, {@code {prefix}{job}/{g}/final/…} results. The
 * manifest and the state reports carry these full keys, so readers never need to know the prefix.
 *
 * <p>The prefix is normalised (no leading slash, exactly one slash before the recorder's own part, runs of
 * slashes collapsed) and refused when it could climb out of its place ({@code .} or {@code ..} segments), has
 * control characters, or leaves too little of S3's 1024-byte key for the recorder's own names.
 */
public final class ObjectKeys {
    /** At most half of S3's 1024-byte key limit, so job id, generation, track and seq always fit. */
    public static final int MAX_PREFIX_BYTES = 512;
    public static final ObjectKeys NONE = new ObjectKeys("");

    private final String prefix;

    private ObjectKeys(String prefix) {
        this.prefix = prefix;
    }

    /**
     * Validates and normalises {@code raw}; null or blank is no prefix (the bucket's root, today's layout).
     *
     * @throws IllegalArgumentException saying what is wrong (the value itself is not repeated: it may hold
     *         control characters that would garble a log line)
     */
    public static ObjectKeys of(String raw) {
        if (raw == null || raw.isBlank()) {
            return NONE;
        }
        for (int i = 0; i < raw.length(); i++) {
            if (Character.isISOControl(raw.charAt(i))) {
                throw new IllegalArgumentException("has a control character at index " + i);
            }
        }
        StringBuilder out = new StringBuilder(raw.length() + 1);
        for (String segment : raw.split("/")) {
            if (segment.isEmpty()) {
                continue; // leading, trailing or repeated slash
            }
            if (segment.equals(".") || segment.equals("..")) {
                throw new IllegalArgumentException("has a '" + segment + "' segment; it must name a fixed place");
            }
            out.append(segment).append('/');
        }
        if (out.isEmpty()) {
            return NONE; // only slashes
        }
        String prefix = out.toString();
        int bytes = prefix.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_PREFIX_BYTES) {
            throw new IllegalArgumentException("is " + bytes + " bytes long (at most " + MAX_PREFIX_BYTES + ")");
        }
        return new ObjectKeys(prefix);
    }

    /** {@code ""} or the normalised prefix ending in exactly one {@code /}. */
    public String prefix() {
        return prefix;
    }

    /** Everything of one job, all generations. */
    public String job(String jobId) {
        return prefix + jobId + "/";
    }

    public String segment(String jobId, long generation, String trackId, long seq) {
        return job(jobId) + generation + "/" + trackId + "/" + seq;
    }

    public String manifests(String jobId) {
        return job(jobId) + "manifest/";
    }

    public String manifest(String jobId, long generation) {
        return manifests(jobId) + String.format("%020d", generation) + ".json";
    }

    public String finalTrack(String jobId, long generation, String trackId) {
        return job(jobId) + generation + "/final/" + trackId + ".webm";
    }

    public String composite(String jobId, long generation) {
        return job(jobId) + generation + "/final/composite.mp4";
    }

    @Override
    public String toString() {
        return prefix.isEmpty() ? "<none>" : prefix;
    }
}
