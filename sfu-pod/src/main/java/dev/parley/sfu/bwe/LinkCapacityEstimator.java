package dev.parley.sfu.bwe;

/**
 * Remembers the acknowledged bitrate at which overuse happened (an exponentially smoothed mean and
 * normalized variance, in kbps). Near that level the rate controller increases additively instead of
 * multiplicatively, so it creeps towards a known bottleneck rather than overshooting it every few
 * seconds. When the acked rate leaves the mean ± 3 deviations the path changed and the memory is dropped.
 */
final class LinkCapacityEstimator {

    private static final double ALPHA = 0.05;
    private double estimateKbps = -1;
    private double varianceKbps = 0.4;

    boolean hasEstimate() {
        return estimateKbps >= 0;
    }

    long estimateBps() {
        return (long) (estimateKbps * 1000);
    }

    long upperBoundBps() {
        return hasEstimate() ? (long) ((estimateKbps + 3 * deviationKbps()) * 1000) : Long.MAX_VALUE;
    }

    long lowerBoundBps() {
        return hasEstimate() ? (long) (Math.max(0, estimateKbps - 3 * deviationKbps()) * 1000) : 0;
    }

    void onOveruse(long ackedBps) {
        double sample = ackedBps / 1000.0;
        if (estimateKbps < 0) {
            estimateKbps = sample;
        } else {
            estimateKbps = (1 - ALPHA) * estimateKbps + ALPHA * sample;
        }
        double norm = Math.max(estimateKbps, 1.0);
        double error = estimateKbps - sample;
        varianceKbps = (1 - ALPHA) * varianceKbps + ALPHA * error * error / norm;
        // bounds keep the band meaningful: not so tight that jitter resets it, not so wide it never does
        varianceKbps = Math.max(0.4, Math.min(2.5, varianceKbps));
    }

    void reset() {
        estimateKbps = -1;
    }

    private double deviationKbps() {
        return Math.sqrt(varianceKbps * estimateKbps);
    }
}
