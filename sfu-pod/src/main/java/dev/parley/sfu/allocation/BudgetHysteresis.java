package dev.parley.sfu.allocation;

import java.util.Arrays;

/**
 * Turns the raw estimate into the budget the allocator may spend: a falling estimate is followed at once
 * (sending more than the path carries builds queues and loss for everyone on it), a rising one only once it
 * has stayed above the budget for {@code holdMs}, and then only up to the lowest value it had during the
 * last {@code holdMs}. This is what keeps a subscriber from climbing to a layer on a momentary peak and
 * falling back a second later.
 *
 * <p>Nor does it rise while the estimate is falling (more than {@value #FALLING_RATIO} below its highest value of the
 * last {@value #FALLING_WINDOW_MS} ms): the estimator is then reacting to congestion, and releasing the
 * higher values of the hold window at that moment stepped a subscriber up just as its link narrowed (seen in
 * the browser test: the limit set to 300 kbps, the estimate falling from 6 Mbps through 738 kbps, the budget
 * rose from 300 kbps to 738 kbps and the subscriber was moved to 720p into the overload).
 *
 * <p>The window minimum is kept in {@value #BUCKETS} time buckets of a tenth of the hold each (a bucket
 * partly older than the window still counts, which errs on the cautious side); no allocation per update.
 */
final class BudgetHysteresis {

    private static final int BUCKETS = 12;
    private static final int WINDOW_BUCKETS = 10;
    static final double FALLING_RATIO = 0.9;
    static final long FALLING_WINDOW_MS = 1_000;

    private final long holdMs;
    private final long bucketMs;
    private final long[] bucketMin = new long[BUCKETS];
    private final long[] bucketIdx = new long[BUCKETS];
    private long budgetBps = -1;
    private long aboveSinceMs = Long.MIN_VALUE;
    // highest estimate of the last ~second, as two half-second buckets
    private long peakBucketStartMs = Long.MIN_VALUE;
    private long peakCurrent, peakPrevious;

    BudgetHysteresis(long holdMs) {
        this.holdMs = holdMs;
        this.bucketMs = Math.max(1, holdMs / WINDOW_BUCKETS);
        Arrays.fill(bucketIdx, Long.MIN_VALUE);
    }

    long update(long estimateBps, long nowMs) {
        record(estimateBps, nowMs);
        long peak = recordPeak(estimateBps, nowMs);
        if (budgetBps < 0 || estimateBps <= budgetBps) {
            budgetBps = estimateBps;
            aboveSinceMs = Long.MIN_VALUE;
            return budgetBps;
        }
        if (aboveSinceMs == Long.MIN_VALUE) {
            aboveSinceMs = nowMs;
        }
        if (nowMs - aboveSinceMs >= holdMs && estimateBps >= FALLING_RATIO * peak) {
            long held = windowMin(nowMs);
            if (held > budgetBps) {
                budgetBps = held;
            }
        }
        return budgetBps;
    }

    long budgetBps() {
        return budgetBps;
    }

    /** Records the estimate in the peak buckets; returns the highest estimate of the last ~second. */
    private long recordPeak(long estimateBps, long nowMs) {
        long half = FALLING_WINDOW_MS / 2;
        if (peakBucketStartMs == Long.MIN_VALUE || nowMs - peakBucketStartMs >= half) {
            boolean stale = peakBucketStartMs == Long.MIN_VALUE || nowMs - peakBucketStartMs >= 2 * half;
            peakPrevious = stale ? 0 : peakCurrent;
            peakCurrent = 0;
            peakBucketStartMs = nowMs;
        }
        peakCurrent = Math.max(peakCurrent, estimateBps);
        return Math.max(peakCurrent, peakPrevious);
    }

    private void record(long estimateBps, long nowMs) {
        long idx = Math.floorDiv(nowMs, bucketMs);
        int slot = (int) Math.floorMod(idx, (long) BUCKETS);
        if (bucketIdx[slot] != idx) {
            bucketIdx[slot] = idx;
            bucketMin[slot] = estimateBps;
        } else {
            bucketMin[slot] = Math.min(bucketMin[slot], estimateBps);
        }
    }

    private long windowMin(long nowMs) {
        long nowIdx = Math.floorDiv(nowMs, bucketMs);
        long min = Long.MAX_VALUE;
        for (int i = 0; i < BUCKETS; i++) {
            if (bucketIdx[i] >= nowIdx - WINDOW_BUCKETS && bucketIdx[i] <= nowIdx) {
                min = Math.min(min, bucketMin[i]);
            }
        }
        return min;
    }
}
