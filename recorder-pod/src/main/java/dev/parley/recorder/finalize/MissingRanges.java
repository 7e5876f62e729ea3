package dev.parley.recorder.finalize;

import dev.parley.recorder.manifest.Manifest.SegmentEntry;
import dev.parley.recorder.manifest.Manifest.TimeRange;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What is missing from a recording, per track: holes between the verified segments (a recorder generation
 * died, stalled or dropped media) and ranges known lost (buffer overflow, checksum mismatch), merged.
 * Before a track's first and after its last media nothing is counted: the recorder cannot tell "not
 * published" from "not received" there (documented in docs/recording.md).
 */
public final class MissingRanges {
    private MissingRanges() {
    }

    public static List<TimeRange> compute(List<SegmentEntry> verified, List<TimeRange> knownLost, long toleranceMs) {
        Map<String, List<SegmentEntry>> byTrack = new TreeMap<>();
        for (SegmentEntry s : verified) {
            byTrack.computeIfAbsent(s.trackId(), k -> new ArrayList<>()).add(s);
        }
        Map<String, List<TimeRange>> holes = new TreeMap<>();
        for (var e : byTrack.entrySet()) {
            List<SegmentEntry> segs = e.getValue();
            segs.sort(Comparator.comparingLong(SegmentEntry::startMs));
            long coveredTo = segs.get(0).endMs();
            for (int i = 1; i < segs.size(); i++) {
                SegmentEntry s = segs.get(i);
                if (s.startMs() - coveredTo > toleranceMs) {
                    holes.computeIfAbsent(e.getKey(), k -> new ArrayList<>())
                            .add(TimeRange.of(e.getKey(), coveredTo, s.startMs(), "no media recorded"));
                }
                coveredTo = Math.max(coveredTo, s.endMs());
            }
        }
        for (TimeRange lost : knownLost) {
            holes.computeIfAbsent(lost.trackId(), k -> new ArrayList<>()).add(lost);
        }
        List<TimeRange> out = new ArrayList<>();
        for (var e : holes.entrySet()) {
            List<TimeRange> rs = e.getValue();
            rs.sort(Comparator.comparingLong(TimeRange::fromMs));
            TimeRange cur = null;
            for (TimeRange r : rs) {
                if (cur != null && r.fromMs() <= cur.toMs() + toleranceMs) {
                    String reason = cur.reason().equals(r.reason()) || r.reason().equals("no media recorded")
                            ? cur.reason() : cur.reason().equals("no media recorded") ? r.reason()
                            : cur.reason() + "; " + r.reason();
                    cur = TimeRange.of(cur.trackId(), cur.fromMs(), Math.max(cur.toMs(), r.toMs()), reason);
                } else {
                    if (cur != null) {
                        out.add(cur);
                    }
                    cur = r;
                }
            }
            if (cur != null) {
                out.add(cur);
            }
        }
        return out;
    }
}
