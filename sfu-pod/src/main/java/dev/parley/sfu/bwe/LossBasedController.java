package dev.parley.sfu.bwe;

/**
 * The loss-based half of GCC (section 6): over each reporting period of at least
 * {@value #MIN_PACKETS_PER_REPORT} packets, loss above 10 % cuts the cap to
 * {@code estimate × (1 − 0.5 × loss)}, loss under 2 % lets the cap grow to 8 % above the lowest
 * estimate of the last second, anything between holds. It catches policers and lossy links that drop
 * without queueing (where the delay signal stays flat).
 *
 * <p>It is a cap: the final estimate is min(delay-based, this). While no loss was ever seen the cap is
 * the configured maximum, i.e. inactive.
 */
final class LossBasedController {

    private static final int MIN_PACKETS_PER_REPORT = 20;
    private static final double LOW_LOSS = 0.02;
    private static final double HIGH_LOSS = 0.10;
    private static final long HALF_HISTORY_MICROS = 500_000;

    private final long minBps;
    private final long maxBps;
    private long capBps;
    private int received;
    private int lost;
    private double lastLossFraction;
    private long lastDecreaseMicros = Long.MIN_VALUE;
    // min estimate over the last ~1 s, as two half-second buckets (no history list to allocate)
    private long bucketStartMicros = Long.MIN_VALUE;
    private long minCurrentBucket = Long.MAX_VALUE;
    private long minPreviousBucket = Long.MAX_VALUE;

    LossBasedController(long minBps, long maxBps) {
        this.minBps = minBps;
        this.maxBps = maxBps;
        this.capBps = maxBps;
    }

    void onPacketResult(boolean wasReceived) {
        if (wasReceived) {
            received++;
        } else {
            lost++;
        }
    }

    /** Loss counts from RTCP receiver reports when transport-cc is not negotiated. */
    void onReceiverReport(int fractionLostQ8, int packets) {
        int lostPackets = Math.round(packets * (fractionLostQ8 / 256f));
        lost += lostPackets;
        received += Math.max(0, packets - lostPackets);
    }

    long capBps() {
        return capBps;
    }

    double lastLossFraction() {
        return lastLossFraction;
    }

    /** A successful probe proves the path carries this much; loss history from before no longer binds. */
    void onProbeResult(long bps) {
        capBps = Math.max(capBps, Math.min(maxBps, bps));
    }

    /**
     * Evaluates the accumulated loss, if a full reporting period is available, against the current final
     * estimate; returns the cap.
     */
    long update(long currentEstimateBps, int rttMs, long nowMicros) {
        trackMinEstimate(currentEstimateBps, nowMicros);
        int expected = received + lost;
        if (expected < MIN_PACKETS_PER_REPORT) {
            return capBps;
        }
        double loss = (double) lost / expected;
        lastLossFraction = loss;
        received = 0;
        lost = 0;
        if (loss < LOW_LOSS) {
            long minRecent = Math.min(minCurrentBucket, minPreviousBucket);
            long grown = (long) (1.08 * minRecent) + 1000;
            capBps = Math.min(maxBps, Math.max(capBps, grown));
        } else if (loss <= HIGH_LOSS) {
            capBps = Math.min(capBps, currentEstimateBps); // hold: no increase while losing a little
        } else {
            long gapMicros = (300L + rttMs) * 1000L; // let the last cut take effect before cutting again
            if (lastDecreaseMicros == Long.MIN_VALUE || nowMicros - lastDecreaseMicros >= gapMicros) {
                long base = Math.min(capBps, currentEstimateBps);
                capBps = Math.max(minBps, (long) (base * (1 - 0.5 * loss)));
                lastDecreaseMicros = nowMicros;
            }
        }
        return capBps;
    }

    private void trackMinEstimate(long estimate, long nowMicros) {
        if (bucketStartMicros == Long.MIN_VALUE || nowMicros - bucketStartMicros >= HALF_HISTORY_MICROS) {
            boolean stale = bucketStartMicros != Long.MIN_VALUE
                    && nowMicros - bucketStartMicros >= 2 * HALF_HISTORY_MICROS;
            minPreviousBucket = stale ? Long.MAX_VALUE : minCurrentBucket;
            minCurrentBucket = Long.MAX_VALUE;
            bucketStartMicros = nowMicros;
        }
        minCurrentBucket = Math.min(minCurrentBucket, estimate);
    }
}
