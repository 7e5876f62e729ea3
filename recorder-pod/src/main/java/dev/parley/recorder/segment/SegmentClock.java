package dev.parley.recorder.segment;

/**
 * Turns ffmpeg's segment list times (seconds of one muxer's stream) into epoch ms that tile the timeline.
 * ffmpeg ends a segment at its last packet's pts plus that packet's duration, and that duration is a guess
 * (IVF carries none; ffmpeg derives it from the stream's frame rate), while the next segment starts at the
 * next packet's real pts. So consecutive segments of one stream overlapped by a few ms when frames came
 * faster than the guess, and left small holes when they came slower, although the stream itself had neither.
 * A start up to {@link #SNAP_MS} after the previous end, or anywhere before it (one ffmpeg stream is
 * monotonic, so an overlap is always the guess), is moved onto the previous end. Longer pauses stay holes.
 */
final class SegmentClock {
    /** Below the finalizer's 300 ms hole rule, more than one frame interval at 7 fps. */
    static final long SNAP_MS = 150;

    private final long anchorMs;
    private double firstStart = Double.NaN;
    private long lastEndMs = Long.MIN_VALUE;

    SegmentClock(long anchorMs) {
        this.anchorMs = anchorMs;
    }

    /** {startMs, endMs} of the next segment, given its start and end in stream seconds. */
    long[] place(double start, double end) {
        if (Double.isNaN(firstStart)) {
            firstStart = start;
        }
        long startMs = anchorMs + Math.round((start - firstStart) * 1000);
        long endMs = anchorMs + Math.round((end - firstStart) * 1000);
        if (lastEndMs != Long.MIN_VALUE && startMs - lastEndMs <= SNAP_MS) {
            startMs = lastEndMs;
        }
        endMs = Math.max(endMs, startMs);
        lastEndMs = endMs;
        return new long[]{startMs, endMs};
    }
}
