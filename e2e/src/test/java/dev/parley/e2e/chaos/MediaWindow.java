package dev.parley.e2e.chaos;

/**
 * {@code packets} packets from publisher {@code pub} arrived at subscriber {@code sub} in meeting {@code meetingId}
 * between two samples of the subscriber's counters: in ({@code fromNanos}, {@code toNanos}] on the monotonic clock
 * every process here shares, ({@code fromWallMs}, {@code toWallMs}] on the wall clock. {@code coarse}: counted by a
 * browser's WebRTC stats, which on a loaded machine may count a packet well after it reached the socket (the load
 * client counts on receipt).
 */
record MediaWindow(String meetingId, String sub, String pub, long fromNanos, long toNanos, long fromWallMs, long toWallMs,
                   long packets, boolean coarse) {
    MediaWindow(String meetingId, String sub, String pub, long fromNanos, long toNanos, long fromWallMs, long toWallMs, long packets) {
        this(meetingId, sub, pub, fromNanos, toNanos, fromWallMs, toWallMs, packets, false);
    }
}
