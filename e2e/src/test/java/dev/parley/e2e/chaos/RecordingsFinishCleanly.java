package dev.parley.e2e.chaos;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Recordings end {@code ready} or {@code partial} with exact missing ranges: the job's final state is one of the two;
 * {@code ready} has no missing range, {@code partial} has some; the API's missing ranges are the manifest's; and per
 * track the manifest's segments and missing ranges tile the recorded span with no overlap and no hole longer than
 * the recorder's documented 300 ms (docs/recording.md, Finalize 3: holes up to 300 ms between verified segments are
 * not missing; consecutive ffmpeg segments are one frame interval apart).
 */
final class RecordingsFinishCleanly extends Invariant {
    static final long HOLE_MS = 300;

    RecordingsFinishCleanly() {
        super("recordings end ready or partial with exact missing ranges");
    }

    /** {@code job}: GET /v1/recordings/{id}; {@code manifest}: the highest generation's manifest (may be null). */
    void judge(String jobId, JsonNode job, JsonNode manifest) {
        String state = job.path("state").asText();
        check(state.equals("ready") || state.equals("partial"), () -> "job " + jobId + " ended " + state + ": " + job);
        int missing = job.path("missing_ranges").size();
        if (state.equals("ready")) check(missing == 0, () -> "job " + jobId + " is ready with missing ranges " + job.path("missing_ranges"));
        if (state.equals("partial")) check(missing > 0, () -> "job " + jobId + " is partial without missing ranges");
        check(manifest != null, () -> "job " + jobId + " has no manifest");
        if (manifest == null) return;
        check(ranges(job.path("missing_ranges")).equals(ranges(manifest.path("missing_ranges"))),
            () -> "job " + jobId + ": API missing ranges " + job.path("missing_ranges") + " differ from the manifest's "
                + manifest.path("missing_ranges"));
        Map<String, List<long[]>> byTrack = new HashMap<>();
        for (JsonNode s : manifest.path("segments")) {
            byTrack.computeIfAbsent(s.path("track_id").asText(), k -> new ArrayList<>())
                .add(new long[] {s.path("start_ms").asLong(), s.path("end_ms").asLong()});
        }
        for (JsonNode r : manifest.path("missing_ranges")) {
            byTrack.computeIfAbsent(r.path("track_id").asText(), k -> new ArrayList<>())
                .add(new long[] {r.path("from_ms").asLong(), r.path("to_ms").asLong()});
        }
        for (Map.Entry<String, List<long[]>> e : byTrack.entrySet()) {
            List<long[]> spans = new ArrayList<>(e.getValue());
            spans.sort(Comparator.comparingLong(a -> a[0]));
            for (int i = 1; i < spans.size(); i++) {
                long[] a = spans.get(i - 1), b = spans.get(i);
                int at = i;
                check(b[0] >= a[1] && b[0] - a[1] <= HOLE_MS, () -> "job " + jobId + " track " + e.getKey() + ": span " + at + " starts at " + b[0]
                    + " but the previous one ends at " + a[1] + (a[1] > b[0] ? " (overlap)" : " (hole)"));
            }
        }
    }

    private static List<String> ranges(JsonNode a) {
        List<String> out = new ArrayList<>();
        for (JsonNode r : a) out.add(r.path("track_id").asText() + ":" + r.path("from_ms").asLong() + "-" + r.path("to_ms").asLong());
        out.sort(null);
        return out;
    }
}
