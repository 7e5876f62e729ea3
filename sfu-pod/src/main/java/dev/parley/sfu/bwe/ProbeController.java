package dev.parley.sfu.bwe;

/**
 * Decides when and how hard to probe. Probing is how an application-limited sender learns headroom: the
 * delay-based controller only ever confirms rates that were actually sent, so an SFU forwarding a low
 * layer would never see that the path could carry the high one.
 *
 * <ul>
 *   <li>Initial: at start, clusters at 3× and 6× the start bitrate, so a call reaches HD in about a second
 *       instead of the ~25 s that 8 %/s multiplicative increase needs.</li>
 *   <li>Exponential continuation: while a result comes back above 70 % of what was probed, probe again at
 *       2× the new estimate; a result below that means we found the bottleneck.</li>
 *   <li>Deficient: while the allocation wants more than the estimate (or, without a desired bitrate,
 *       while application-limited), probe every {@link BweConfig#alrProbeIntervalMicros()} at 2× the
 *       estimate (twice that interval after a probe that found no room). This is what brings a
 *       subscriber back up after a network dip: an SFU forwarding a low layer never sends enough for
 *       the delay-based controller to see that the path recovered.</li>
 * </ul>
 * Targets are capped at 1.5 × the allocator's desired bitrate: probing beyond what anyone would forward
 * only costs the subscriber's bandwidth.
 */
final class ProbeController {

    enum State { INIT, WAITING_FOR_RESULT, COMPLETE }

    static final long CLUSTER_DURATION_MICROS = 20_000;
    static final int CLUSTER_MIN_PACKETS = 5;
    private static final long RESULT_TIMEOUT_MICROS = 1_000_000;
    private static final double FURTHER_RATIO = 0.7;
    private static final int QUEUE = 4;
    /** Failed probes double the interval, at most once: recovery after a dip must stay within seconds. */
    private static final int MAX_BACKOFF_SHIFT = 1;

    private final BweConfig config;
    private final ProbeClusterRequest[] queue = new ProbeClusterRequest[QUEUE];
    private int queueHead;
    private int queueSize;
    private State state = State.INIT;
    private int nextId;
    private long minBitrateToProbeFurther = Long.MAX_VALUE;
    private long lastProbeMicros = Long.MIN_VALUE;
    private long desiredBps;
    private int failedProbes;
    /** Continuation is a reaction to a measurement: without a new probe result, no new probe. */
    private boolean resultSinceLastProbe;
    private ProbeKind kind = ProbeKind.PADDING;

    ProbeController(BweConfig config) {
        this.config = config;
    }

    void setDesiredBitrate(long bps) {
        this.desiredBps = Math.max(0, bps);
    }

    void setRtxAvailable(boolean available) {
        this.kind = available ? ProbeKind.RTX : ProbeKind.PADDING;
    }

    State state() {
        return state;
    }

    /** First media went out: start the initial exponential probes. */
    void onStart(long nowMicros, long estimateBps) {
        if (state != State.INIT) {
            return;
        }
        state = State.COMPLETE;
        if (!config.probingEnabled()) {
            return;
        }
        long first = probe(nowMicros, 3 * config.startBitrateBps(), estimateBps);
        long second = probe(nowMicros, 6 * config.startBitrateBps(), estimateBps);
        if (first > 0 || second > 0) {
            state = State.WAITING_FOR_RESULT;
            minBitrateToProbeFurther = (long) (FURTHER_RATIO * Math.max(first, second));
        }
    }

    /** A probe produced a measurement (whether or not it raised the estimate). */
    void onProbeResult() {
        resultSinceLastProbe = true;
    }

    /** A new estimate: continue exponential probing if the last probe found room. */
    void onEstimate(long nowMicros, long estimateBps) {
        if (state != State.WAITING_FOR_RESULT) {
            return;
        }
        if (nowMicros - lastProbeMicros > RESULT_TIMEOUT_MICROS) {
            state = State.COMPLETE;
            failedProbes = Math.min(failedProbes + 1, MAX_BACKOFF_SHIFT);
            return;
        }
        if (resultSinceLastProbe && estimateBps > minBitrateToProbeFurther) {
            long target = probe(nowMicros, 2 * estimateBps, estimateBps);
            failedProbes = 0;
            if (target > 0) {
                minBitrateToProbeFurther = (long) (FURTHER_RATIO * target);
            } else {
                state = State.COMPLETE; // capped: nothing more worth probing for
            }
        }
    }

    /** Periodic check (timeouts, probing while the allocation is deficient). */
    void onTick(long nowMicros, long estimateBps, boolean inAlr) {
        if (state == State.WAITING_FOR_RESULT && nowMicros - lastProbeMicros > RESULT_TIMEOUT_MICROS) {
            state = State.COMPLETE;
            // the estimate never reached 70 % of the last target: the path is full, back off
            failedProbes = Math.min(failedProbes + 1, MAX_BACKOFF_SHIFT);
        }
        if (state != State.COMPLETE || !config.probingEnabled()) {
            return;
        }
        // Deficient: the allocator wants more than the estimate allows. Without a desired bitrate, being
        // application-limited is the only hint that more could be used.
        boolean deficient = desiredBps > 0 ? desiredBps > estimateBps : inAlr;
        if (!deficient) {
            failedProbes = 0;
            return;
        }
        long interval = config.alrProbeIntervalMicros() << failedProbes;
        if (lastProbeMicros != Long.MIN_VALUE && nowMicros - lastProbeMicros < interval) {
            return;
        }
        // aim at what the allocation wants (plus margin) when that is further than 2×, up to 4×: one probe
        // instead of a chain of doublings, each of which the allocator's step-up hold would delay
        long target = probe(nowMicros, Math.max(2 * estimateBps, Math.min(4 * estimateBps, desiredBps + desiredBps / 4)),
                estimateBps);
        if (target > 0) {
            state = State.WAITING_FOR_RESULT;
            minBitrateToProbeFurther = (long) (FURTHER_RATIO * target);
        }
    }

    ProbeClusterRequest poll() {
        if (queueSize == 0) {
            return null;
        }
        ProbeClusterRequest r = queue[queueHead];
        queue[queueHead] = null;
        queueHead = (queueHead + 1) % QUEUE;
        queueSize--;
        return r;
    }

    /** Enqueues a cluster at {@code wantedBps} after capping; returns the target used, or 0 if none. */
    private long probe(long nowMicros, long wantedBps, long estimateBps) {
        long cap = config.maxBitrateBps();
        if (desiredBps > 0) {
            cap = Math.min(cap, desiredBps + desiredBps / 2);
        }
        long target = Math.min(wantedBps, cap);
        if (target <= estimateBps || queueSize == QUEUE) {
            return 0;
        }
        int minBytes = (int) Math.max(CLUSTER_MIN_PACKETS * 100L, target * CLUSTER_DURATION_MICROS / 8_000_000L);
        ProbeClusterRequest r = new ProbeClusterRequest(nextId++, target, CLUSTER_DURATION_MICROS,
                CLUSTER_MIN_PACKETS, minBytes, kind);
        if (nextId < 0) {
            nextId = 0;
        }
        queue[(queueHead + queueSize) % QUEUE] = r;
        queueSize++;
        lastProbeMicros = nowMicros;
        resultSinceLastProbe = false;
        return target;
    }
}
