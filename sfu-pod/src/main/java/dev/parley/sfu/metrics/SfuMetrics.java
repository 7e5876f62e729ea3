package dev.parley.sfu.metrics;

import dev.parley.podmetrics.JvmProcessMetrics;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Counters and gauges in Prometheus text format, plus the JVM and process series. Rates (ingress_bps, egress_bps,
 * packets_per_second, for {@code /state} and the registry's load) are computed over the last completed second by
 * {@link #tick}; {@code /metrics} exports the byte and packet counters instead.
 */
public final class SfuMetrics {
    public final LongAdder ingressBytes = new LongAdder(), egressBytes = new LongAdder();
    public final LongAdder ingressPackets = new LongAdder(), forwardedPackets = new LongAdder();
    public final LongAdder nacksReceived = new LongAdder(), retransmissions = new LongAdder(), nacksSent = new LongAdder();
    public final LongAdder plisSent = new LongAdder(), plisReceived = new LongAdder();
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
    private final JvmProcessMetrics jvm = new JvmProcessMetrics();

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
    private static final String[] LATENCY_LE = le(LATENCY_BUCKETS_US, 6), ESTIMATE_LE = le(bytes(ESTIMATE_BUCKETS_BPS), 0);
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

    /**
     * Prometheus text: base units (seconds, bytes), counters end in {@code _total}, no per-meeting or per-participant
     * labels (docs/observability.md). The media thread keeps counting in µs and bps; only the export converts.
     */
    public String prometheus() {
        StringBuilder sb = new StringBuilder(16 * 1024);
        gaugeLine(sb, "parley_sfu_packet_queue_age_seconds", "Max receipt-to-send time over the last second", queueAgeMaxMicros / 1e6);
        for (Map.Entry<String, LongSupplier> g : new TreeMap<>(gauges).entrySet()) {
            gaugeLine(sb, "parley_sfu_" + g.getKey(), g.getKey(), g.getValue().getAsLong());
        }
        counter(sb, "parley_sfu_ingress_bytes_total", "Bytes received on media sockets", ingressBytes.sum());
        counter(sb, "parley_sfu_egress_bytes_total", "Bytes sent on media sockets", egressBytes.sum());
        counter(sb, "parley_sfu_ingress_packets_total", "RTP/RTCP packets received", ingressPackets.sum());
        counter(sb, "parley_sfu_forwarded_packets_total", "RTP packets forwarded", forwardedPackets.sum());
        counter(sb, "parley_sfu_nacks_received_total", "NACK blocks received from subscribers", nacksReceived.sum());
        counter(sb, "parley_sfu_nacks_sent_total", "NACKs sent to publishers", nacksSent.sum());
        counter(sb, "parley_sfu_retransmissions_total", "packets retransmitted from the cache", retransmissions.sum());
        counter(sb, "parley_sfu_rtx_sent_total", "retransmissions sent on a subscriber's RTX stream", rtxSent.sum());
        counter(sb, "parley_sfu_rtx_repairs_total", "RTX packets from publishers that repaired a missing packet", rtxRepairs.sum());
        counter(sb, "parley_sfu_twcc_feedback_sent_total", "transport-cc feedback messages sent to publishers", twccFeedbackSent.sum());
        counter(sb, "parley_sfu_plis_sent_total", "PLIs sent to publishers", plisSent.sum());
        counter(sb, "parley_sfu_plis_received_total", "PLI/FIR received from subscribers", plisReceived.sum());
        counter(sb, "parley_sfu_twcc_feedback_total", "transport-cc feedback blocks from subscribers applied to their estimators", twccFeedback.sum());
        counter(sb, "parley_sfu_srtp_auth_failures_total", "SRTP/SRTCP packets failing authentication", srtpAuthFailures.sum());
        sb.append("# HELP parley_sfu_forward_latency_seconds Receipt-to-send time of forwarded packets\n# TYPE parley_sfu_forward_latency_seconds histogram\n");
        long cum = 0;
        for (int i = 0; i < latency.length(); i++) {
            cum += latency.get(i);
            sb.append("parley_sfu_forward_latency_seconds_bucket{le=\"").append(LATENCY_LE[i]).append("\"} ").append(cum).append('\n');
        }
        sb.append("parley_sfu_forward_latency_seconds_sum ").append(latencySumUs.get() / 1e6).append('\n');
        sb.append("parley_sfu_forward_latency_seconds_count ").append(cum).append('\n');
        SubscriberSnapshot ss = subscribers;
        sb.append("# HELP parley_sfu_subscriber_estimate_bytes_per_second Send-side bandwidth estimate per subscriber transport (last second)\n")
                .append("# TYPE parley_sfu_subscriber_estimate_bytes_per_second histogram\n");
        long ecum = 0;
        for (int i = 0; i < ss.estimateBuckets().length; i++) {
            ecum += ss.estimateBuckets()[i];
            sb.append("parley_sfu_subscriber_estimate_bytes_per_second_bucket{le=\"").append(ESTIMATE_LE[i]).append("\"} ").append(ecum).append('\n');
        }
        sb.append("parley_sfu_subscriber_estimate_bytes_per_second_sum ").append(ss.estimateSumBps() / 8.0).append('\n');
        sb.append("parley_sfu_subscriber_estimate_bytes_per_second_count ").append(ss.subscribers()).append('\n');
        sb.append("# HELP parley_sfu_video_slots_forwarding Subscriber video slots by the simulcast layer they forward (spatial index)\n")
                .append("# TYPE parley_sfu_video_slots_forwarding gauge\n");
        for (int i = 0; i < ss.videoSlotsOnLayer().length; i++) {
            sb.append("parley_sfu_video_slots_forwarding{spatial=\"").append(i).append("\"} ").append(ss.videoSlotsOnLayer()[i]).append('\n');
        }
        sb.append("parley_sfu_video_slots_forwarding{spatial=\"none\"} ").append(ss.videoSlotsIdle()).append('\n');
        sb.append("# HELP parley_sfu_drops_total Dropped packets by reason\n# TYPE parley_sfu_drops_total counter\n");
        for (Map.Entry<String, LongAdder> d : new TreeMap<>(drops).entrySet()) {
            sb.append("parley_sfu_drops_total{reason=\"").append(d.getKey()).append("\"} ").append(d.getValue().sum()).append('\n');
        }
        jvm.appendTo(sb);
        return sb.toString();
    }

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

    private static void gaugeLine(StringBuilder sb, String name, String help, double v) {
        sb.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(" gauge\n")
                .append(name).append(' ').append(v).append('\n');
    }

    private static void counter(StringBuilder sb, String name, String help, long v) {
        sb.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(" counter\n")
                .append(name).append(' ').append(v).append('\n');
    }
}
