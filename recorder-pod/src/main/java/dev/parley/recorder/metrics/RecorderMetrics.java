package dev.parley.recorder.metrics;

import dev.parley.podmetrics.JvmProcessMetrics;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Counters and gauges in Prometheus text format (hand-written: a handful of series), followed by the JVM and
 * process series of client_java's JVM instrumentation.
 */
public final class RecorderMetrics {
    public static final String SEGMENTS_UPLOADED = "parley_recorder_segments_uploaded_total";
    public static final String UPLOAD_RETRIES = "parley_recorder_upload_retries_total";
    public static final String UPLOAD_BYTES = "parley_recorder_uploaded_bytes_total";
    public static final String SEGMENTS_DROPPED = "parley_recorder_segments_dropped_total";
    public static final String LOST_PACKETS = "parley_recorder_lost_packets_total";
    public static final String RTP_PACKETS = "parley_recorder_rtp_packets_total";
    public static final String DUPLICATE_PACKETS = "parley_recorder_duplicate_packets_total";
    public static final String DROPPED_FRAMES = "parley_recorder_dropped_frames_total";
    public static final String BUFFER_SEGMENTS = "parley_recorder_buffer_segments";
    public static final String BUFFER_BYTES = "parley_recorder_buffer_bytes";

    private static final Map<String, String> HELP = Map.of(
            SEGMENTS_UPLOADED, "Segments uploaded and confirmed in the manifest",
            UPLOAD_RETRIES, "Upload or manifest attempts that failed and were retried",
            UPLOAD_BYTES, "Segment bytes uploaded",
            SEGMENTS_DROPPED, "Segments dropped because the local buffer was full or uploads were given up",
            LOST_PACKETS, "RTP packets lost on the recorder side (queue full) or by the network (sequence gaps)",
            RTP_PACKETS, "RTP packets received",
            DUPLICATE_PACKETS, "RTP packets received twice (overlapping SFU legs) and dropped",
            DROPPED_FRAMES, "Frames not written because a packet was missing (until the next keyframe)",
            BUFFER_SEGMENTS, "Segments waiting in the local buffer for upload",
            BUFFER_BYTES, "Bytes waiting in the local buffer for upload");

    private final JvmProcessMetrics jvm = new JvmProcessMetrics();
    private final ConcurrentHashMap<String, LongAdder> counters = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, LongSupplier> gauges = new ConcurrentHashMap<>();

    public void inc(String name, String labels, long delta) {
        counters.computeIfAbsent(series(name, labels), k -> new LongAdder()).add(delta);
    }

    public void inc(String name, long delta) {
        inc(name, "", delta);
    }

    /** Returns a counter cell to keep on a hot path (no map lookup per packet). */
    public LongAdder counter(String name, String labels) {
        return counters.computeIfAbsent(series(name, labels), k -> new LongAdder());
    }

    public void gauge(String name, String labels, LongSupplier value) {
        gauges.put(series(name, labels), value);
    }

    public long value(String name, String labels) {
        LongAdder a = counters.get(series(name, labels));
        return a == null ? 0 : a.sum();
    }

    /** Sum over all label sets of one counter. */
    public long total(String name) {
        long sum = 0;
        for (var e : counters.entrySet()) {
            if (e.getKey().equals(name) || e.getKey().startsWith(name + "{")) {
                sum += e.getValue().sum();
            }
        }
        return sum;
    }

    public String render() {
        TreeMap<String, Long> all = new TreeMap<>();
        counters.forEach((k, v) -> all.merge(withoutTrack(k), v.sum(), Long::sum));
        gauges.forEach((k, v) -> all.put(k, v.getAsLong()));
        StringBuilder sb = new StringBuilder();
        String lastName = null;
        for (var e : all.entrySet()) {
            String name = e.getKey().contains("{") ? e.getKey().substring(0, e.getKey().indexOf('{')) : e.getKey();
            if (!name.equals(lastName)) {
                sb.append("# HELP ").append(name).append(' ').append(HELP.getOrDefault(name, name)).append('\n');
                sb.append("# TYPE ").append(name).append(name.endsWith("_total") ? " counter" : " gauge").append('\n');
                lastName = name;
            }
            sb.append(e.getKey()).append(' ').append(e.getValue()).append('\n');
        }
        jvm.appendTo(sb);
        return sb.toString();
    }

    /**
     * The series as exported: without the {@code track} label. Track ids are {@code {publisher}_{mid}}, a participant
     * id in a label (personal data, one series per participant); the cells stay per track for {@link #value} and the
     * run's own accounting, the scrape sums them.
     */
    public static String withoutTrack(String series) {
        int open = series.indexOf('{');
        if (open < 0) {
            return series;
        }
        String labels = series.substring(open + 1, series.length() - 1).replaceAll("(^|,)track=\"(?:[^\"\\\\]|\\\\.)*\"", "")
                .replaceFirst("^,", "");
        return labels.isEmpty() ? series.substring(0, open) : series.substring(0, open) + "{" + labels + "}";
    }

    private static String series(String name, String labels) {
        return labels == null || labels.isEmpty() ? name : name + "{" + labels + "}";
    }
}
