package dev.parley.recorder.finalize;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.recorder.manifest.Manifest.SegmentEntry;
import dev.parley.recorder.manifest.Manifest.TimeRange;
import java.util.List;
import org.junit.jupiter.api.Test;

class MissingRangesTest {
    static SegmentEntry seg(String track, long gen, long seq, long from, long to) {
        return new SegmentEntry(track, gen, seq, "j/" + gen + "/" + track + "/" + seq, from, to, "x", 1);
    }

    @Test
    void contiguousSegmentsMissNothing() {
        assertThat(MissingRanges.compute(List.of(seg("a", 1, 0, 0, 2000), seg("a", 1, 1, 2000, 4000),
                seg("a", 1, 2, 4000, 4700)), List.of(), 300)).isEmpty();
    }

    @Test
    void takeoverGapIsReportedPerTrackExactly() {
        List<SegmentEntry> segs = List.of(seg("cam", 1, 0, 0, 2000), seg("cam", 1, 1, 2000, 4000),
                seg("cam", 2, 0, 9500, 11500), seg("mic", 1, 0, 10, 2010), seg("mic", 2, 0, 9400, 11400));
        List<TimeRange> r = MissingRanges.compute(segs, List.of(), 300);
        assertThat(r).extracting(TimeRange::trackId, TimeRange::fromMs, TimeRange::toMs)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("cam", 4000L, 9500L),
                        org.assertj.core.groups.Tuple.tuple("mic", 2010L, 9400L));
    }

    @Test
    void lostSegmentsMergeWithTheHoleTheyLeaveAndKeepTheirReason() {
        List<SegmentEntry> segs = List.of(seg("a", 1, 0, 0, 2000), seg("a", 1, 3, 6000, 8000));
        List<TimeRange> lost = List.of(TimeRange.of("a", 2000, 4000, "buffer full"),
                TimeRange.of("a", 4000, 6000, "buffer full"));
        List<TimeRange> r = MissingRanges.compute(segs, lost, 300);
        assertThat(r).hasSize(1);
        assertThat(r.get(0).fromMs()).isEqualTo(2000);
        assertThat(r.get(0).toMs()).isEqualTo(6000);
        assertThat(r.get(0).reason()).isEqualTo("buffer full");
    }

    @Test
    void lostTailWithoutLaterSegmentsIsStillMissing() {
        List<TimeRange> r = MissingRanges.compute(List.of(seg("a", 1, 0, 0, 2000)),
                List.of(TimeRange.of("a", 2000, 3100, "upload did not complete before finalize")), 300);
        assertThat(r).extracting(TimeRange::toMs).containsExactly(3100L);
    }

    @Test
    void jitterBelowToleranceIsNotAGap() {
        assertThat(MissingRanges.compute(List.of(seg("a", 1, 0, 0, 2000), seg("a", 1, 1, 2250, 4000)),
                List.of(), 300)).isEmpty();
    }
}
