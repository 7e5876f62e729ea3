package dev.parley.e2e.chaos;

import java.util.List;

/**
 * Least-squares line through a series of (seconds, value) samples: the growth per hour a soak run reports, and
 * whether it is flat, meaning the change the line predicts over the measured span stays within
 * {@code max(floor, 5 % of the mean)}. The floor is the series' own grain (a few fds, threads, MiB), so a run
 * whose values wander by one thread is not a leak and one that gains a thread a minute is.
 */
record Slope(double perHour, double mean, double residualSd, double spanSeconds, int samples) {
    static final double RELATIVE_BOUND = 0.05;

    static Slope of(List<double[]> points) {
        int n = points.size();
        if (n < 3) throw new IllegalArgumentException("a slope needs at least 3 samples, got " + n);
        double sx = 0, sy = 0;
        for (double[] p : points) {
            sx += p[0];
            sy += p[1];
        }
        double mx = sx / n, my = sy / n, sxx = 0, sxy = 0;
        for (double[] p : points) {
            sxx += (p[0] - mx) * (p[0] - mx);
            sxy += (p[0] - mx) * (p[1] - my);
        }
        double b = sxx == 0 ? 0 : sxy / sxx;
        double ss = 0;
        for (double[] p : points) {
            double r = p[1] - (my + b * (p[0] - mx));
            ss += r * r;
        }
        double span = points.get(n - 1)[0] - points.get(0)[0];
        return new Slope(b * 3600, my, Math.sqrt(ss / Math.max(1, n - 2)), span, n);
    }

    /** The change the line predicts from the first to the last sample. */
    double changeOverSpan() {
        return perHour / 3600 * spanSeconds;
    }

    /** The largest change over the span still called flat. */
    double bound(double floor) {
        return Math.max(floor, RELATIVE_BOUND * Math.abs(mean));
    }

    boolean flat(double floor) {
        return changeOverSpan() <= bound(floor);
    }
}
