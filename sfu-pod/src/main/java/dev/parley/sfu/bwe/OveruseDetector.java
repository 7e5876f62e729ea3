package dev.parley.sfu.bwe;

/**
 * Compares the trendline's modified trend with an adaptive threshold (GCC section 5.4). The threshold
 * rises slowly towards large trends and falls faster towards small ones ({@code k_up < k_down}), so a
 * concurrent TCP flow that keeps the queue full cannot starve us (a fixed threshold would keep signalling
 * overuse), while real queue build-up still crosses it. Overuse must persist for 10 ms and two samples
 * and the trend must not be falling, which filters single-group spikes.
 */
final class OveruseDetector {

    private static final double K_UP = 0.0087;
    private static final double K_DOWN = 0.039;
    private static final double OVERUSE_TIME_MS = 10;
    /** Trends far above the threshold are outliers (e.g. a route change); don't adapt to them. */
    private static final double MAX_ADAPT_OFFSET_MS = 15;
    private static final double MIN_THRESHOLD = 6;
    private static final double MAX_THRESHOLD = 600;
    private static final long MAX_TIME_DELTA_MS = 100;

    private double threshold = 12.5;
    private double timeOverUsingMs = -1;
    private int overuseCounter;
    private double prevTrend;
    private long lastUpdateMicros = Long.MIN_VALUE;
    private BandwidthUsage state = BandwidthUsage.NORMAL;

    BandwidthUsage detect(double modifiedTrend, long sendDeltaMicros, long nowMicros) {
        double tsDeltaMs = sendDeltaMicros / 1000.0;
        if (modifiedTrend > threshold) {
            if (timeOverUsingMs == -1) {
                timeOverUsingMs = tsDeltaMs / 2; // assume we are half way through the current group
            } else {
                timeOverUsingMs += tsDeltaMs;
            }
            overuseCounter++;
            if (timeOverUsingMs > OVERUSE_TIME_MS && overuseCounter > 1 && modifiedTrend >= prevTrend) {
                timeOverUsingMs = 0;
                overuseCounter = 0;
                state = BandwidthUsage.OVERUSING;
            }
        } else if (modifiedTrend < -threshold) {
            timeOverUsingMs = -1;
            overuseCounter = 0;
            state = BandwidthUsage.UNDERUSING;
        } else {
            timeOverUsingMs = -1;
            overuseCounter = 0;
            state = BandwidthUsage.NORMAL;
        }
        prevTrend = modifiedTrend;
        adaptThreshold(modifiedTrend, nowMicros);
        return state;
    }

    private void adaptThreshold(double modifiedTrend, long nowMicros) {
        if (lastUpdateMicros == Long.MIN_VALUE) {
            lastUpdateMicros = nowMicros;
        }
        double absTrend = Math.abs(modifiedTrend);
        if (absTrend > threshold + MAX_ADAPT_OFFSET_MS) {
            lastUpdateMicros = nowMicros;
            return;
        }
        double k = absTrend < threshold ? K_DOWN : K_UP;
        long dtMs = Math.min((nowMicros - lastUpdateMicros) / 1000, MAX_TIME_DELTA_MS);
        threshold += k * (absTrend - threshold) * dtMs;
        threshold = Math.max(MIN_THRESHOLD, Math.min(MAX_THRESHOLD, threshold));
        lastUpdateMicros = nowMicros;
    }

    BandwidthUsage state() {
        return state;
    }

    double threshold() {
        return threshold;
    }
}
