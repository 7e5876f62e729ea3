package dev.parley.sfu.metrics;

import dev.parley.podmetrics.JvmProcessMetrics;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

/**
 * The process's metrics over its media workers: each worker counts into its own {@link SfuMetrics} (no counter is
 * shared between worker threads); this sums them when someone asks (scrape, {@code /state}, registry refresh, tests)
 * and adds the per-worker series and the JVM/process series once.
 */
public final class ProcessMetrics {
    private final List<SfuMetrics> workers;
    private final JvmProcessMetrics jvm = new JvmProcessMetrics();

    public ProcessMetrics(List<SfuMetrics> workers) { this.workers = List.copyOf(workers); }

    public List<SfuMetrics> workers() { return workers; }

    /** Sum of one counter over the workers, e.g. {@code sum(m -> m.forwardedPackets)}. */
    public long sum(Function<SfuMetrics, LongAdder> counter) {
        long n = 0;
        for (SfuMetrics m : workers) n += counter.apply(m).sum();
        return n;
    }

    public long drops(String reason) { return total(m -> m.drops(reason)); }
    public long ingressBps() { return total(SfuMetrics::ingressBps); }
    public long egressBps() { return total(SfuMetrics::egressBps); }
    public long packetsPerSecond() { return total(SfuMetrics::packetsPerSecond); }

    private long total(ToLongFunction<SfuMetrics> f) {
        long n = 0;
        for (SfuMetrics m : workers) n += f.applyAsLong(m);
        return n;
    }

    /**
     * Prometheus text: base units (seconds, bytes), counters end in {@code _total}, no per-meeting or per-participant
     * labels (docs/observability.md). Series without a label are the process's totals; the
     * {@code parley_sfu_worker_*{worker="i"}} series show how the load spreads over the workers.
     */
    public String prometheus() {
        StringBuilder sb = new StringBuilder(16 * 1024);
        long ageMax = 0;
        for (SfuMetrics m : workers) ageMax = Math.max(ageMax, m.queueAgeMaxMicros());
        gaugeLine(sb, "parley_sfu_packet_queue_age_seconds", "Max receipt-to-send time over the last second", ageMax / 1e6);
        Map<String, Long> gauges = new TreeMap<>();
        for (SfuMetrics m : workers) {
            for (Map.Entry<String, LongSupplier> g : m.gauges().entrySet()) gauges.merge(g.getKey(), g.getValue().getAsLong(), Long::sum);
        }
        for (Map.Entry<String, Long> g : gauges.entrySet()) gaugeLine(sb, "parley_sfu_" + g.getKey(), g.getKey(), g.getValue());
        counter(sb, "parley_sfu_ingress_bytes_total", "Bytes received on media sockets", sum(m -> m.ingressBytes));
        counter(sb, "parley_sfu_egress_bytes_total", "Bytes sent on media sockets", sum(m -> m.egressBytes));
        counter(sb, "parley_sfu_ingress_packets_total", "RTP/RTCP packets received", sum(m -> m.ingressPackets));
        counter(sb, "parley_sfu_forwarded_packets_total", "RTP packets forwarded", sum(m -> m.forwardedPackets));
        counter(sb, "parley_sfu_nacks_received_total", "NACK blocks received from subscribers", sum(m -> m.nacksReceived));
        counter(sb, "parley_sfu_nacks_sent_total", "NACKs sent to publishers", sum(m -> m.nacksSent));
        counter(sb, "parley_sfu_retransmissions_total", "packets retransmitted from the cache", sum(m -> m.retransmissions));
        counter(sb, "parley_sfu_rtx_sent_total", "retransmissions sent on a subscriber's RTX stream", sum(m -> m.rtxSent));
        counter(sb, "parley_sfu_rtx_repairs_total", "RTX packets from publishers that repaired a missing packet", sum(m -> m.rtxRepairs));
        counter(sb, "parley_sfu_twcc_feedback_sent_total", "transport-cc feedback messages sent to publishers", sum(m -> m.twccFeedbackSent));
        counter(sb, "parley_sfu_plis_sent_total", "PLIs sent to publishers", sum(m -> m.plisSent));
        counter(sb, "parley_sfu_keyframe_holds_replayed_total", "new subscribers' slots started from the packets held since the keyframe",
                sum(m -> m.keyframeHoldsReplayed));
        counter(sb, "parley_sfu_plis_received_total", "PLI/FIR received from subscribers", sum(m -> m.plisReceived));
        counter(sb, "parley_sfu_twcc_feedback_total", "transport-cc feedback blocks from subscribers applied to their estimators", sum(m -> m.twccFeedback));
        counter(sb, "parley_sfu_srtp_auth_failures_total", "SRTP/SRTCP packets failing authentication", sum(m -> m.srtpAuthFailures));
        latencyHistogram(sb);
        subscriberSeries(sb);
        sb.append("# HELP parley_sfu_drops_total Dropped packets by reason\n# TYPE parley_sfu_drops_total counter\n");
        Map<String, Long> drops = new TreeMap<>();
        for (SfuMetrics m : workers) for (Map.Entry<String, LongAdder> d : m.dropCounters().entrySet()) drops.merge(d.getKey(), d.getValue().sum(), Long::sum);
        for (Map.Entry<String, Long> d : drops.entrySet()) {
            sb.append("parley_sfu_drops_total{reason=\"").append(d.getKey()).append("\"} ").append(d.getValue()).append('\n');
        }
        workerSeries(sb);
        jvm.appendTo(sb);
        return sb.toString();
    }

    private void latencyHistogram(StringBuilder sb) {
        sb.append("# HELP parley_sfu_forward_latency_seconds Receipt-to-send time of forwarded packets\n# TYPE parley_sfu_forward_latency_seconds histogram\n");
        long cum = 0, sumUs = 0;
        for (int i = 0; i <= SfuMetrics.LATENCY_BUCKETS_US.length; i++) {
            for (SfuMetrics m : workers) cum += m.latencyBucket(i);
            sb.append("parley_sfu_forward_latency_seconds_bucket{le=\"").append(SfuMetrics.LATENCY_LE[i]).append("\"} ").append(cum).append('\n');
        }
        for (SfuMetrics m : workers) sumUs += m.latencySumMicros();
        sb.append("parley_sfu_forward_latency_seconds_sum ").append(sumUs / 1e6).append('\n');
        sb.append("parley_sfu_forward_latency_seconds_count ").append(cum).append('\n');
    }

    private void subscriberSeries(StringBuilder sb) {
        long[] buckets = new long[SfuMetrics.ESTIMATE_BUCKETS_BPS.length + 1];
        long[] layers = new long[SfuMetrics.LAYER_GAUGE_SLOTS];
        long estimateSum = 0, subscribers = 0, idle = 0;
        for (SfuMetrics m : workers) {
            SfuMetrics.SubscriberSnapshot ss = m.subscriberSnapshot();
            for (int i = 0; i < buckets.length && i < ss.estimateBuckets().length; i++) buckets[i] += ss.estimateBuckets()[i];
            for (int i = 0; i < layers.length && i < ss.videoSlotsOnLayer().length; i++) layers[i] += ss.videoSlotsOnLayer()[i];
            estimateSum += ss.estimateSumBps();
            subscribers += ss.subscribers();
            idle += ss.videoSlotsIdle();
        }
        sb.append("# HELP parley_sfu_subscriber_estimate_bytes_per_second Send-side bandwidth estimate per subscriber transport (last second)\n")
                .append("# TYPE parley_sfu_subscriber_estimate_bytes_per_second histogram\n");
        long ecum = 0;
        for (int i = 0; i < buckets.length; i++) {
            ecum += buckets[i];
            sb.append("parley_sfu_subscriber_estimate_bytes_per_second_bucket{le=\"").append(SfuMetrics.ESTIMATE_LE[i]).append("\"} ").append(ecum).append('\n');
        }
        sb.append("parley_sfu_subscriber_estimate_bytes_per_second_sum ").append(estimateSum / 8.0).append('\n');
        sb.append("parley_sfu_subscriber_estimate_bytes_per_second_count ").append(subscribers).append('\n');
        sb.append("# HELP parley_sfu_video_slots_forwarding Subscriber video slots by the simulcast layer they forward (spatial index)\n")
                .append("# TYPE parley_sfu_video_slots_forwarding gauge\n");
        for (int i = 0; i < layers.length; i++) {
            sb.append("parley_sfu_video_slots_forwarding{spatial=\"").append(i).append("\"} ").append(layers[i]).append('\n');
        }
        sb.append("parley_sfu_video_slots_forwarding{spatial=\"none\"} ").append(idle).append('\n');
    }

    /** Per worker: forwarded packets, packets/s, and the worker's transports and meetings. */
    private void workerSeries(StringBuilder sb) {
        sb.append("# HELP parley_sfu_workers Media workers (event loops with their own ports and meetings)\n# TYPE parley_sfu_workers gauge\n")
                .append("parley_sfu_workers ").append(workers.size()).append('\n');
        perWorker(sb, "parley_sfu_worker_forwarded_packets_total", "RTP packets forwarded by each worker", "counter", m -> m.forwardedPackets.sum());
        perWorker(sb, "parley_sfu_worker_packets_per_second", "Packets forwarded per second by each worker (last second)", "gauge", SfuMetrics::packetsPerSecond);
        perWorker(sb, "parley_sfu_worker_transports", "Transports on each worker", "gauge", m -> gauge(m, "transports"));
        perWorker(sb, "parley_sfu_worker_meetings", "Meetings on each worker", "gauge", m -> gauge(m, "meetings"));
    }

    private void perWorker(StringBuilder sb, String name, String help, String type, ToLongFunction<SfuMetrics> f) {
        sb.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(' ').append(type).append('\n');
        for (int i = 0; i < workers.size(); i++) {
            sb.append(name).append("{worker=\"").append(i).append("\"} ").append(f.applyAsLong(workers.get(i))).append('\n');
        }
    }

    private static long gauge(SfuMetrics m, String name) {
        LongSupplier g = m.gauges().get(name);
        return g == null ? 0 : g.getAsLong();
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
