package dev.parley.sfu.bwe;

/**
 * Application-limited region: the SFU sends clearly less than the estimate (a subscriber on a low layer,
 * a paused video). Then the delay signal cannot confirm any higher rate, so headroom can only be found by
 * probing. Enter below 65 % of the estimate, leave above 80 % (two thresholds so it doesn't toggle).
 */
final class AlrDetector {

    private static final double ENTER_RATIO = 0.65;
    private static final double EXIT_RATIO = 0.80;
    private static final long WINDOW_MICROS = 500_000;

    private final RateWindow sendRate = new RateWindow(WINDOW_MICROS, 10);
    private boolean inAlr;

    void onMediaSent(long sendMicros, int size) {
        sendRate.add(sendMicros, size);
    }

    boolean update(long nowMicros, long estimateBps) {
        long rate = sendRate.bitsPerSecond(nowMicros, WINDOW_MICROS / 2);
        if (rate < 0) {
            return inAlr;
        }
        if (!inAlr && rate < ENTER_RATIO * estimateBps) {
            inAlr = true;
        } else if (inAlr && rate > EXIT_RATIO * estimateBps) {
            inAlr = false;
        }
        return inAlr;
    }

    boolean inAlr() {
        return inAlr;
    }

    long sendRateBps(long nowMicros) {
        return sendRate.bitsPerSecond(nowMicros, WINDOW_MICROS / 2);
    }
}
