package dev.parley.sfu.bwe;

/**
 * Bytes per second over a sliding time window, kept in a ring of fixed buckets so adding a sample is
 * O(1) and allocation-free. Used for the acknowledged bitrate (by arrival time) and the send rate (by
 * send time, for ALR detection).
 */
final class RateWindow {

    private final long bucketMicros;
    private final long[] bucketBytes;
    private final long[] bucketIndex;
    private long firstSampleMicros = Long.MIN_VALUE;
    private long newestMicros = Long.MIN_VALUE;

    RateWindow(long windowMicros, int buckets) {
        if (buckets < 2 || windowMicros < buckets) {
            throw new IllegalArgumentException("window too small for " + buckets + " buckets");
        }
        this.bucketMicros = windowMicros / buckets;
        this.bucketBytes = new long[buckets];
        this.bucketIndex = new long[buckets];
        java.util.Arrays.fill(bucketIndex, Long.MIN_VALUE);
    }

    void add(long timeMicros, int bytes) {
        if (firstSampleMicros == Long.MIN_VALUE) {
            firstSampleMicros = timeMicros;
        }
        if (timeMicros > newestMicros) {
            newestMicros = timeMicros;
        }
        long idx = Math.floorDiv(timeMicros, bucketMicros);
        if (idx <= Math.floorDiv(newestMicros, bucketMicros) - bucketBytes.length) {
            return; // older than the window: it no longer says anything about the current rate
        }
        int slot = (int) Math.floorMod(idx, (long) bucketBytes.length);
        if (bucketIndex[slot] != idx) {
            bucketIndex[slot] = idx;
            bucketBytes[slot] = 0;
        }
        bucketBytes[slot] += bytes;
    }

    /**
     * Bits per second over the window ending at {@code nowMicros}, or -1 when fewer than
     * {@code minSpanMicros} of history exist (a rate over a few milliseconds is noise).
     */
    long bitsPerSecond(long nowMicros, long minSpanMicros) {
        if (firstSampleMicros == Long.MIN_VALUE) {
            return -1;
        }
        long nowIdx = Math.floorDiv(nowMicros, bucketMicros);
        long oldestIdx = nowIdx - bucketBytes.length + 1;
        long bytes = 0;
        for (int i = 0; i < bucketBytes.length; i++) {
            if (bucketIndex[i] >= oldestIdx && bucketIndex[i] <= nowIdx) {
                bytes += bucketBytes[i];
            }
        }
        long windowStart = oldestIdx * bucketMicros;
        long span = nowMicros - Math.max(windowStart, firstSampleMicros);
        if (span < minSpanMicros) {
            return -1;
        }
        return bytes * 8L * 1_000_000L / span;
    }

    void reset() {
        java.util.Arrays.fill(bucketIndex, Long.MIN_VALUE);
        firstSampleMicros = Long.MIN_VALUE;
        newestMicros = Long.MIN_VALUE;
    }
}
