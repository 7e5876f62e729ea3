package dev.parley.sfu.bwe;

/**
 * The delay-based rate controller (GCC section 5.5): a three-state machine driven by the over-use
 * detector. Overuse decreases the rate to 0.85 × the acknowledged bitrate (what actually got through,
 * not what we wished to send), underuse holds (let the queue drain), normal increases: multiplicatively
 * (8 %/s) while the link capacity is unknown, additively (about one packet per response time) once we
 * are near a capacity where overuse happened before.
 */
final class AimdRateController {

    enum State { HOLD, INCREASE, DECREASE }

    private static final double BETA = 0.85;
    private static final double MULTIPLICATIVE_PER_SECOND = 1.08;
    private static final long MIN_ADDITIVE_BPS_PER_SECOND = 4_000;
    private static final int ASSUMED_FPS = 30;
    private static final int MTU_BYTES = 1200;
    /**
     * How long a probe result floors the throughput a decrease is based on. Long enough to cover the
     * allocator's step-up hold and the layer switch after it (the acked window still shows the old, lower
     * layer when the new layer's first keyframe burst arrives); each decrease inside it shrinks the floor by
     * {@link #BETA}, so real congestion still drives the estimate down geometrically.
     */
    private static final long PROBE_VALIDITY_MICROS = 5_000_000;

    private final long minBps;
    private final long maxBps;
    private final LinkCapacityEstimator linkCapacity = new LinkCapacityEstimator();
    private State state = State.HOLD;
    private long currentBps;
    private long lastChangeMicros = Long.MIN_VALUE;
    private long lastDecreaseMicros = Long.MIN_VALUE;
    private int rttMs = 100;
    private long probeBps;
    private long probeValidUntilMicros = Long.MIN_VALUE;

    AimdRateController(long startBps, long minBps, long maxBps) {
        this.currentBps = startBps;
        this.minBps = minBps;
        this.maxBps = maxBps;
    }

    long estimateBps() {
        return currentBps;
    }

    State state() {
        return state;
    }

    void setRttMs(int rtt) {
        this.rttMs = rtt;
    }

    /** A REMB value: trusted as the new estimate, the smooth controller resumes from it. */
    void setEstimate(long bps, long nowMicros) {
        currentBps = clamp(bps);
        lastChangeMicros = nowMicros;
    }

    /**
     * A probe result: the new estimate, and for {@value #PROBE_VALIDITY_MICROS} µs also a floor for the
     * throughput a decrease is based on. Right after a probe jumps the estimate, the acked bitrate (a 500 ms
     * window) still mostly reflects the old, lower rate; an overuse then (typically the next, deliberately
     * excessive probe) would cut to 0.85 × that stale figure and throw away what the probe just measured.
     */
    void onProbeResult(long bps, long nowMicros) {
        setEstimate(bps, nowMicros);
        probeBps = bps;
        probeValidUntilMicros = nowMicros + PROBE_VALIDITY_MICROS;
    }

    /**
     * Runs the state machine after one feedback; {@code ackedBps} is -1 while unknown.
     */
    long update(BandwidthUsage usage, long ackedBps, long nowMicros) {
        switch (usage) {
            case OVERUSING -> state = State.DECREASE;
            case UNDERUSING -> state = State.HOLD;
            case NORMAL -> {
                if (state == State.HOLD || state == State.DECREASE) {
                    state = State.INCREASE;
                    lastChangeMicros = nowMicros; // the increase is paced from now, not from the last decrease
                }
            }
        }
        if (lastChangeMicros == Long.MIN_VALUE) {
            lastChangeMicros = nowMicros;
        }
        switch (state) {
            case HOLD -> { }
            case INCREASE -> increase(ackedBps, nowMicros);
            case DECREASE -> {
                decrease(ackedBps, nowMicros);
                state = State.HOLD; // one decrease per overuse signal, then wait for the queue to drain
            }
        }
        return currentBps;
    }

    private void increase(long ackedBps, long nowMicros) {
        if (ackedBps > 0 && linkCapacity.hasEstimate() && ackedBps > linkCapacity.upperBoundBps()) {
            linkCapacity.reset(); // we are clearly past the old bottleneck: the path has more room now
        }
        long dtMicros = Math.max(0, nowMicros - lastChangeMicros);
        long increment;
        if (linkCapacity.hasEstimate()) {
            increment = additiveIncrease(dtMicros);
        } else {
            double dtS = Math.min(dtMicros, 1_000_000) / 1e6;
            increment = Math.max(1000, (long) (currentBps * (Math.pow(MULTIPLICATIVE_PER_SECOND, dtS) - 1)));
        }
        long next = currentBps + increment;
        // Never run far ahead of what the receiver actually acknowledged: an application-limited sender
        // (an SFU forwarding a low layer) would otherwise grow an estimate the path never confirmed.
        if (ackedBps > 0) {
            long ceiling = Math.max(currentBps, (long) (1.5 * ackedBps) + 10_000);
            next = Math.min(next, ceiling);
        }
        currentBps = clamp(next);
        lastChangeMicros = nowMicros;
    }

    private long additiveIncrease(long dtMicros) {
        double responseTimeMs = rttMs + 100.0;
        double bitsPerFrame = (double) currentBps / ASSUMED_FPS;
        double packetsPerFrame = Math.ceil(bitsPerFrame / (8.0 * MTU_BYTES));
        double avgPacketBits = bitsPerFrame / packetsPerFrame;
        double bpsPerSecond = Math.max(MIN_ADDITIVE_BPS_PER_SECOND, avgPacketBits * 1000.0 / responseTimeMs);
        return (long) (bpsPerSecond * Math.min(dtMicros, 1_000_000) / 1e6);
    }

    private void decrease(long ackedBps, long nowMicros) {
        // At most one reduction per RTT: the effect of the last one cannot be seen earlier.
        long minGap = Math.max(10, Math.min(200, rttMs)) * 1000L;
        if (lastDecreaseMicros != Long.MIN_VALUE && nowMicros - lastDecreaseMicros < minGap) {
            return;
        }
        if (nowMicros < probeValidUntilMicros) {
            ackedBps = Math.max(ackedBps, probeBps);
            probeBps = (long) (probeBps * BETA);
        }
        if (ackedBps <= 0) {
            currentBps = clamp((long) (currentBps * BETA));
        } else {
            long target = (long) (BETA * ackedBps);
            if (target > currentBps && linkCapacity.hasEstimate()) {
                target = (long) (BETA * linkCapacity.estimateBps());
            }
            if (linkCapacity.hasEstimate() && ackedBps < linkCapacity.lowerBoundBps()) {
                linkCapacity.reset(); // capacity dropped below what we knew: relearn it
            }
            linkCapacity.onOveruse(ackedBps);
            currentBps = clamp(Math.min(target, currentBps));
        }
        lastDecreaseMicros = nowMicros;
        lastChangeMicros = nowMicros;
    }

    private long clamp(long bps) {
        return Math.max(minBps, Math.min(maxBps, bps));
    }
}
