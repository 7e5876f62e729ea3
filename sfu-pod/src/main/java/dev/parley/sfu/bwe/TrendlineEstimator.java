package dev.parley.sfu.bwe;

/**
 * Estimates whether the bottleneck queue is growing: accumulates the inter-group delay variation,
 * smooths it exponentially and fits a least-squares line over the last {@value #WINDOW} points
 * against arrival time. The slope (ms of extra delay per ms) is the delay gradient; scaled by the number
 * of samples seen and a gain it becomes the "modified trend" the {@link OveruseDetector} thresholds.
 *
 * <p>Regression over a window is what libwebrtc replaced the draft's Kalman filter with: it reacts to a
 * sustained trend and shrugs off single late groups. Points live in a ring of primitive arrays.
 */
final class TrendlineEstimator {

    static final int WINDOW = 20;
    private static final double SMOOTHING = 0.9;
    private static final double THRESHOLD_GAIN = 4.0;
    /** Early in a call few deltas exist; scaling by min(count, 60) keeps the first trends from firing. */
    private static final int MAX_DELTAS_SCALE = 60;

    private final double[] xMs = new double[WINDOW];
    private final double[] yMs = new double[WINDOW];
    private int count; // points in the ring
    private int head;  // next write position
    private long firstArrivalMicros = Long.MIN_VALUE;
    private double accumulatedDelayMs;
    private double smoothedDelayMs;
    private int numDeltas;
    private double slope;

    /**
     * Adds one group delta; returns the modified trend (0 until the window is full).
     */
    double update(long sendDeltaMicros, long arrivalDeltaMicros, long arrivalMicros) {
        double deltaMs = (arrivalDeltaMicros - sendDeltaMicros) / 1000.0;
        if (numDeltas < 1000) {
            numDeltas++;
        }
        if (firstArrivalMicros == Long.MIN_VALUE) {
            firstArrivalMicros = arrivalMicros;
        }
        accumulatedDelayMs += deltaMs;
        smoothedDelayMs = SMOOTHING * smoothedDelayMs + (1 - SMOOTHING) * accumulatedDelayMs;

        xMs[head] = (arrivalMicros - firstArrivalMicros) / 1000.0;
        yMs[head] = smoothedDelayMs;
        head = (head + 1) % WINDOW;
        if (count < WINDOW) {
            count++;
        }
        if (count == WINDOW) {
            slope = regressionSlope(slope);
        }
        return modifiedTrend();
    }

    double modifiedTrend() {
        return Math.min(numDeltas, MAX_DELTAS_SCALE) * slope * THRESHOLD_GAIN;
    }

    double slope() {
        return slope;
    }

    private double regressionSlope(double fallback) {
        double sumX = 0;
        double sumY = 0;
        for (int i = 0; i < count; i++) {
            sumX += xMs[i];
            sumY += yMs[i];
        }
        double meanX = sumX / count;
        double meanY = sumY / count;
        double num = 0;
        double den = 0;
        for (int i = 0; i < count; i++) {
            double dx = xMs[i] - meanX;
            num += dx * (yMs[i] - meanY);
            den += dx * dx;
        }
        return den == 0 ? fallback : num / den; // all points at one instant: keep the previous slope
    }
}
