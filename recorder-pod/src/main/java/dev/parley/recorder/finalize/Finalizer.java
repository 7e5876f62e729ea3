package dev.parley.recorder.finalize;

import dev.parley.recorder.manifest.JobState;
import dev.parley.recorder.manifest.Manifest;
import dev.parley.recorder.manifest.Manifest.SegmentEntry;
import dev.parley.recorder.manifest.Manifest.TimeRange;
import dev.parley.recorder.segment.Ffmpeg;
import dev.parley.recorder.storage.ObjectKeys;
import dev.parley.recorder.storage.ObjectStore;
import dev.parley.recorder.storage.Sha256;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a manifest into the result: verifies every listed segment against its stored object (download +
 * sha256), computes the missing ranges, builds per-track WebM files (segments concatenated, holes filled
 * with black/silence so tracks stay aligned) and one composite MP4 (H.264 + AAC: grid of the video tracks,
 * mixed audio), uploads them under the finalizing generation's {@code {prefix}{job}/{g}/final/} and says
 * ready / partial / failed.
 */
public final class Finalizer {
    private static final Logger LOG = LoggerFactory.getLogger(Finalizer.class);

    private final ObjectStore store;
    private final ObjectKeys keys;
    private final Ffmpeg ffmpeg;
    private final Path work;
    private final long toleranceMs;
    private final int tileWidth;
    private final int tileHeight;

    public Finalizer(ObjectStore store, ObjectKeys keys, Ffmpeg ffmpeg, Path work, long toleranceMs, int tileWidth,
                     int tileHeight) {
        this.store = store;
        this.keys = keys;
        this.ffmpeg = ffmpeg;
        this.work = work;
        this.toleranceMs = toleranceMs;
        this.tileWidth = tileWidth;
        this.tileHeight = tileHeight;
    }

    public record Outcome(JobState state, List<TimeRange> missing, Manifest.Result result, String failureReason,
                          List<TimeRange> corrupt) {
    }

    public Outcome finalizeJob(Manifest m, long generation) {
        try {
            Files.createDirectories(work);
            Map<String, SegmentEntry> unique = new LinkedHashMap<>();
            for (SegmentEntry s : m.segments) {
                unique.putIfAbsent(s.key(), s);
            }
            List<SegmentEntry> verified = new ArrayList<>();
            List<TimeRange> corrupt = new ArrayList<>();
            Map<String, Path> local = new TreeMap<>();
            int n = 0;
            for (SegmentEntry s : unique.values()) {
                // not named after the key: a prefix may be long or hold characters ffconcat lists can't quote
                Path f = work.resolve("segment_" + n++ + ".webm");
                String why = null;
                try {
                    String sha = store.download(s.key(), f);
                    if (!sha.equals(s.sha256()) || Files.size(f) != s.size()) {
                        why = "stored object does not match its manifest checksum";
                    }
                } catch (IOException | RuntimeException e) {
                    why = "stored object missing or unreadable: " + e.getMessage();
                }
                if (why == null) {
                    verified.add(s);
                    local.put(s.key(), f);
                } else {
                    LOG.warn("segment {} rejected: {}", s.key(), why);
                    corrupt.add(TimeRange.of(s.trackId(), s.startMs(), s.endMs(), why));
                }
            }
            List<TimeRange> known = new ArrayList<>(m.lost);
            known.addAll(corrupt);
            List<TimeRange> missing = MissingRanges.compute(verified, known, toleranceMs);
            if (verified.isEmpty()) {
                return new Outcome(JobState.FAILED, missing, null, "no media was recorded", corrupt);
            }
            long origin = verified.stream().mapToLong(SegmentEntry::startMs).min().orElseThrow();
            missing = missing.stream().map(r -> r.withOrigin(origin)).toList();
            Map<String, List<SegmentEntry>> byTrack = new TreeMap<>();
            for (SegmentEntry s : verified) {
                byTrack.computeIfAbsent(s.trackId(), k -> new ArrayList<>()).add(s);
            }
            Map<String, String> trackKeys = new TreeMap<>();
            List<Path> videoFiles = new ArrayList<>();
            List<Path> audioFiles = new ArrayList<>();
            for (var e : byTrack.entrySet()) {
                String kind = m.tracks.containsKey(e.getKey()) ? m.tracks.get(e.getKey()).kind() : "video";
                Path trackFile = buildTrack(e.getKey(), kind, e.getValue(), local, origin);
                String key = keys.finalTrack(m.jobId, generation, e.getKey());
                store.putFile(key, trackFile, Sha256.of(trackFile), "video/webm");
                trackKeys.put(e.getKey(), key);
                ("audio".equals(kind) ? audioFiles : videoFiles).add(trackFile);
            }
            Path composite = work.resolve("composite.mp4");
            buildComposite(videoFiles, audioFiles, composite);
            double duration = ffmpeg.duration(composite);
            String compositeKey = keys.composite(m.jobId, generation);
            String sha = Sha256.of(composite);
            store.putFile(compositeKey, composite, sha, "video/mp4");
            Manifest.Result result = new Manifest.Result(compositeKey, sha, Files.size(composite), duration, trackKeys);
            return new Outcome(missing.isEmpty() ? JobState.READY : JobState.PARTIAL, missing, result, null, corrupt);
        } catch (IOException | RuntimeException e) {
            LOG.error("finalize failed", e);
            return new Outcome(JobState.FAILED, List.of(), null, "finalize failed: " + e.getMessage(), List.of());
        }
    }

    /** Concatenates a track's segments (copy, no re-encode); holes and a late start are filled. */
    private Path buildTrack(String trackId, String kind, List<SegmentEntry> segs, Map<String, Path> local,
                            long origin) throws IOException {
        segs.sort(Comparator.comparingLong(SegmentEntry::startMs));
        Path dir = Files.createDirectories(work.resolve("track-" + trackId));
        StringBuilder list = new StringBuilder("ffconcat version 1.0\n");
        boolean audio = "audio".equals(kind);
        int[] size = audio ? null : ffmpeg.videoSize(local.get(segs.get(0).key()));
        long cursor = origin;
        int fillers = 0;
        for (SegmentEntry s : segs) {
            long holeMs = s.startMs() - cursor;
            if (holeMs > toleranceMs) {
                Path filler = dir.resolve("filler_" + fillers++ + ".webm");
                makeFiller(audio, size, holeMs, filler, dir);
                list.append("file '").append(filler).append("'\n");
            }
            Path f = local.get(s.key());
            list.append("file '").append(f).append("'\n");
            if (s.startMs() < cursor - toleranceMs) {
                // overlaps what is already there (two generations during a takeover): skip the overlap
                list.append(String.format(Locale.ROOT, "inpoint %.3f%n", (cursor - s.startMs()) / 1000.0));
            }
            cursor = Math.max(cursor, s.endMs());
        }
        Path listFile = dir.resolve("concat.txt");
        Files.writeString(listFile, list.toString());
        Path out = work.resolve(trackId + ".webm");
        ffmpeg.run(List.of("-f", "concat", "-safe", "0", "-i", listFile.toString(), "-c", "copy", out.toString()),
                dir.resolve("concat.log"), 600);
        return out;
    }

    private void makeFiller(boolean audio, int[] size, long ms, Path out, Path dir) throws IOException {
        String d = String.format(Locale.ROOT, "%.3f", ms / 1000.0);
        if (audio) {
            ffmpeg.run(List.of("-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-t", d, "-c:a", "libopus",
                    "-b:a", "16k", out.toString()), dir.resolve("filler.log"), 120);
        } else {
            ffmpeg.run(List.of("-f", "lavfi", "-i", "color=black:s=" + size[0] + "x" + size[1] + ":r=15", "-t", d,
                    "-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "50k", out.toString()),
                    dir.resolve("filler.log"), 120);
        }
    }

    /** Grid of the video tracks (xstack) + mix of the audio tracks (amix) into H.264/AAC MP4. */
    private void buildComposite(List<Path> video, List<Path> audio, Path out) throws IOException {
        List<String> args = new ArrayList<>();
        for (Path p : video) {
            args.addAll(List.of("-i", p.toString()));
        }
        for (Path p : audio) {
            args.addAll(List.of("-i", p.toString()));
        }
        StringBuilder fc = new StringBuilder();
        int n = video.size();
        for (int i = 0; i < n; i++) {
            fc.append(String.format(Locale.ROOT,
                    "[%d:v]scale=%d:%d:force_original_aspect_ratio=decrease,pad=%d:%d:(ow-iw)/2:(oh-ih)/2,"
                            + "setsar=1,fps=30[v%d];", i, tileWidth, tileHeight, tileWidth, tileHeight, i));
        }
        if (n == 1) {
            fc.append("[v0]null[vout];");
        } else if (n > 1) {
            int cols = (int) Math.ceil(Math.sqrt(n));
            StringBuilder layout = new StringBuilder();
            for (int i = 0; i < n; i++) {
                fc.append("[v").append(i).append(']');
                layout.append(i == 0 ? "" : "|").append((i % cols) * tileWidth).append('_').append((i / cols) * tileHeight);
            }
            fc.append("xstack=inputs=").append(n).append(":layout=").append(layout).append(":fill=black[vout];");
        }
        int a = audio.size();
        for (int i = 0; i < a; i++) {
            fc.append('[').append(n + i).append(":a]");
        }
        if (a == 1) {
            fc.append("anull[aout]");
        } else if (a > 1) {
            fc.append("amix=inputs=").append(a).append(":duration=longest:normalize=0[aout]");
        }
        String filter = fc.toString();
        if (filter.endsWith(";")) {
            filter = filter.substring(0, filter.length() - 1);
        }
        args.addAll(List.of("-filter_complex", filter));
        if (n > 0) {
            args.addAll(List.of("-map", "[vout]", "-c:v", "libx264", "-preset", "veryfast", "-crf", "28",
                    "-pix_fmt", "yuv420p"));
        }
        if (a > 0) {
            args.addAll(List.of("-map", "[aout]", "-c:a", "aac", "-b:a", "96k"));
        }
        args.addAll(List.of("-movflags", "+faststart", out.toString()));
        ffmpeg.run(args, work.resolve("composite.log"), 3600);
    }
}
