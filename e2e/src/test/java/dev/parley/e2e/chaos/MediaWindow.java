package dev.parley.e2e.chaos;

/**
 * {@code packets} packets from publisher {@code pub} arrived at subscriber {@code sub} in meeting {@code meetingId}
 * between two samples of the subscriber's counters: in ({@code fromNanos}, {@code toNanos}] on the monotonic clock
 * every process here shares, ({@code fromWallMs}, {@code toWallMs}] on the wall clock. {@code coarse}: counted by a
 * browser's WebRTC stats, which on a loaded machine may count a packet well after it reached the socket (the load
 * client counts on receipt). {@code earliestSentNanos}: the earliest send time stamped in the window's packets (the
 * load client stamps each packet; {@link Long#MAX_VALUE} when unknown): none of them can have left the SFU before it.
 */
record MediaWindow(String meetingId, String sub, String pub, long fromNanos, long toNanos, long fromWallMs, long toWallMs,
                   long packets, boolean coarse, long earliestSentNanos) {
    MediaWindow(String meetingId, String sub, String pub, long fromNanos, long toNanos, long fromWallMs, long toWallMs, long packets) {
        this(meetingId, sub, pub, fromNanos, toNanos, fromWallMs, toWallMs, packets, false, Long.MAX_VALUE);
    }

    MediaWindow(String meetingId, String sub, String pub, long fromNanos, long toNanos, long fromWallMs, long toWallMs,
                long packets, boolean coarse) {
        this(meetingId, sub, pub, fromNanos, toNanos, fromWallMs, toWallMs, packets, coarse, Long.MAX_VALUE);
    }
}
