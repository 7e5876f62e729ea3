package dev.parley.recorder.segment;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ffmpeg's segment list as seen in the chaos suite's recordings: each end is the last packet's pts plus a guessed
 * duration, each start the next packet's real pts. The placed times tile the timeline; real pauses stay holes.
 */
class SegmentClockTest {
    private static final long ANCHOR = 1_700_000_000_000L;

    @Test
    void overlapsAndSmallHolesFromGuessedDurationsTile() {
        SegmentClock c = new SegmentClock(ANCHOR);
        // the first segment's times start at 1.5 s of the stream: the anchor is its first frame
        assertThat(c.place(1.5, 11.5667)).containsExactly(ANCHOR, ANCHOR + 10_067);
        // next keyframe 3.6 ms before the guessed end (frames came faster than the guess): was an overlap
        assertThat(c.place(11.5631, 21.6)).containsExactly(ANCHOR + 10_067, ANCHOR + 20_100);
        // 28 ms after it (frames came slower): was a hole
        assertThat(c.place(21.628, 31.7)).containsExactly(ANCHOR + 20_100, ANCHOR + 30_200);
        // a segment that ffmpeg placed wholly before the previous end still never reaches back
        assertThat(c.place(31.69, 31.695)).containsExactly(ANCHOR + 30_200, ANCHOR + 30_200);
    }

    @Test
    void aRealPauseStaysAHole() {
        SegmentClock c = new SegmentClock(ANCHOR);
        c.place(0, 10);
        // media stopped 2 s: the finalizer must see this hole and report it missing
        assertThat(c.place(12, 20)).containsExactly(ANCHOR + 12_000, ANCHOR + 20_000);
        // just above the snap bound: kept too
        assertThat(c.place(20 + (SegmentClock.SNAP_MS + 1) / 1000.0, 25))
                .containsExactly(ANCHOR + 20_000 + SegmentClock.SNAP_MS + 1, ANCHOR + 25_000);
    }
}
