package dev.parley.sfu.metrics;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * One media worker's counters and gauges (written by that worker's thread only; nothing here is shared between
 * workers on the packet path). {@link ProcessMetrics} sums the workers for {@code /metrics}. Rates (ingress_bps, egress_bps,
 * packets_per_second, for {@code /state} and the registry's load) are computed over the last completed second by
 * {@link #tick}; {@code /metrics} exports the byte and packet counters instead.
 */
public final class SfuMetrics {
    public final LongAdder ingressBytes = new LongAdder(), egressBytes = new LongAdder();
    public final LongAdder ingressPackets = new LongAdder(), forwardedPackets = new LongAdder();
    public final LongAdder nacksReceived = new LongAdder(), retransmissions = new LongAdder(), nacksSent = new LongAdder();
    public final LongAdder plisSent = new LongAdder(), plisReceived = new LongAdder();
    /** A new subscriber's slot started from the packets its layer held since the keyframe (routing.KeyframeHold). */
    public final LongAdder keyframeHoldsReplayed = new LongAdder();
    public final LongAdder srtpAuthFailures = new LongAdder(), stunRequests = new LongAdder();
    /** Retransmissions sent as RTX (subset of retransmissions); RTX packets from publishers that repaired a loss. */
    public final LongAdder rtxSent = new LongAdder(), rtxRepairs = new LongAdder();
    /** transport-cc feedback messages sent to publishers. */
    public final LongAdder twccFeedbackSent = new LongAdder();
    /** Upper bounds (bps) of the per-subscriber estimate histogram; the last bucket is +Inf. */
    public static final long[] ESTIMATE_BUCKETS_BPS = {100_000, 300_000, 500_000, 1_000_000, 2_000_000, 5_000_000};
    /** Spatial layers reported individually in the forwarded-layer gauge; higher ones count in the last. */
    public static final int LAYER_GAUGE_SLOTS = 4;
    /**
     * Per-subscriber congestion-control snapshot, replaced once a second by the media thread. Aggregated on
     * purpose: participant ids never become metric labels (unbounded cardinality, and they are personal data).
     */
    public record SubscriberSnapshot(long[] estimateBuckets, long estimateSumBps, long subscribers, long[] videoSlotsOnLayer,
                                     long videoSlotsIdle) {
        static final SubscriberSnapshot EMPTY = new SubscriberSnapshot(new long[ESTIMATE_BUCKETS_BPS.length + 1], 0, 0,
                new long[LAYER_GAUGE_SLOTS], 0);
    }
    private volatile SubscriberSnapshot subscribers = SubscriberSnapshot.EMPTY;

    public void subscriberSnapshot(SubscriberSnapshot s) { subscribers = s; }
    public SubscriberSnapshot subscriberSnapshot() { return subscribers; }

    /** Bucket index of an estimate in {@link #ESTIMATE_BUCKETS_BPS} (length = +Inf). */
    public static int estimateBucket(long bps) {
        int i = 0;
        while (i < ESTIMATE_BUCKETS_BPS.length && bps > ESTIMATE_BUCKETS_BPS[i]) i++;
        return i;
    }

    /** transport-cc feedback blocks from subscribers applied to their estimators. */
    public final LongAdder twccFeedback = new LongAdder();
    private final Map<String, LongAdder> drops = new ConcurrentHashMap<>();
    /** Upper bounds (µs) of the forwarding-latency histogram buckets; the last bucket is +Inf. */
    public static final long[] LATENCY_BUCKETS_US = {25, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 10000, 20000, 50000};
    /** Written by the media thread only (release stores, no locked add per packet); read by the scrape. */
    private final java.util.concurrent.atomic.AtomicLongArray latency = new java.util.concurrent.atomic.AtomicLongArray(LATENCY_BUCKETS_US.length + 1);
    /** The exported {@code le} labels: the µs and bps bounds above in seconds and bytes per second. */
    static final String[] LATENCY_LE = le(LATENCY_BUCKETS_US, 6), ESTIMATE_LE = le(bytes(ESTIMATE_BUCKETS_BPS), 0);
    private final java.util.concurrent.atomic.AtomicLong latencySumUs = new java.util.concurrent.atomic.AtomicLong();
    private final Map<String, LongSupplier> gauges = new ConcurrentHashMap<>();
    private volatile long ingressBps, egressBps, pps;
    private long lastIn, lastOut, lastPk, lastTick = System.nanoTime();
    /** Max time (µs) between receipt of a packet and its hand-off to the socket, over the last second. */
    private volatile long queueAgeMaxMicros;
    private long queueAgeWindowMax;

    public void drop(String reason) {
        drops.computeIfAbsent(reason, r -> new LongAdder()).increment();
    }

    public void drop(String reason, long n) {
        drops.computeIfAbsent(reason, r -> new LongAdder()).add(n);
    }

    public long drops(String reason) {
        LongAdder a = drops.get(reason);
        return a == null ? 0 : a.sum();
    }

    public void gauge(String name, LongSupplier s) { gauges.put(name, s); }

    /**
     * Called on the media thread for every forwarded packet with the time from its receipt on the socket to its
     * hand-off to the socket writer (decrypt, route, rewrite, encrypt, and the fan-out copies before it).
     * Single writer: plain read-then-release-store instead of an atomic add on every forwarded packet.
     */
    public void queueAge(long micros) {
        if (micros > queueAgeWindowMax) queueAgeWindowMax = micros;
        int i = 0;
        while (i < LATENCY_BUCKETS_US.length && micros > LATENCY_BUCKETS_US[i]) i++;
        latency.lazySet(i, latency.get(i) + 1);
        latencySumUs.lazySet(latencySumUs.get() + micros);
    }

    /** Latency at percentile {@code q} (0..1) as the upper bound of its bucket, in µs (-1 if +Inf, 0 if empty). */
    public long latencyPercentileUs(double q) {
        long total = 0;
        for (int i = 0; i < latency.length(); i++) total += latency.get(i);
        if (total == 0) return 0;
        long rank = (long) Math.ceil(q * total), seen = 0;
        for (int i = 0; i < latency.length(); i++) {
            seen += latency.get(i);
            if (seen >= rank) return i < LATENCY_BUCKETS_US.length ? LATENCY_BUCKETS_US[i] : -1;
        }
        return -1;
    }

    /** Once a second (media thread). */
    public void tick() {
        long now = System.nanoTime();
        double secs = Math.max(0.001, (now - lastTick) / 1e9);
        long in = ingressBytes.sum(), out = egressBytes.sum(), pk = forwardedPackets.sum();
        ingressBps = (long) ((in - lastIn) * 8 / secs);
        egressBps = (long) ((out - lastOut) * 8 / secs);
        pps = (long) ((pk - lastPk) / secs);
        lastIn = in; lastOut = out; lastPk = pk; lastTick = now;
        queueAgeMaxMicros = queueAgeWindowMax;
        queueAgeWindowMax = 0;
    }

    public long ingressBps() { return ingressBps; }
    public long egressBps() { return egressBps; }
    public long packetsPerSecond() { return pps; }

    /** Max receipt-to-send time (µs) over the last completed second. */
    long queueAgeMaxMicros() { return queueAgeMaxMicros; }
    /** Forwarded packets per latency bucket (index = bucket of {@link #LATENCY_BUCKETS_US}, last = +Inf). */
    long latencyBucket(int i) { return latency.get(i); }
    long latencySumMicros() { return latencySumUs.get(); }
    Map<String, LongSupplier> gauges() { return gauges; }
    Map<String, LongAdder> dropCounters() { return drops; }

    private static long[] bytes(long[] bps) {
        long[] r = new long[bps.length];
        for (int i = 0; i < bps.length; i++) r[i] = bps[i] / 8;
        return r;
    }

    /** Bounds scaled down by 10^decimals as plain decimals, plus "+Inf". */
    private static String[] le(long[] bounds, int decimals) {
        String[] r = new String[bounds.length + 1];
        for (int i = 0; i < bounds.length; i++) {
            r[i] = java.math.BigDecimal.valueOf(bounds[i], decimals).stripTrailingZeros().toPlainString();
        }
        r[bounds.length] = "+Inf";
        return r;
    }
}
