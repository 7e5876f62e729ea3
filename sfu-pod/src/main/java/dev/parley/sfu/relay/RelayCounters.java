package dev.parley.sfu.relay;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Relay metrics per SFU pair (this SFU and a peer pod, both bounded by the cluster's size): packets and bytes
 * relayed out and in, refused relay requests by reason. A relay holds its pair's adders, so the packet path only
 * increments. Layers and relay counts are gauges read from the live relays at scrape time.
 */
final class RelayCounters {
    record Pair(LongAdder packets, LongAdder bytes) {}

    private final Map<String, Pair> pairs = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> refused = new ConcurrentHashMap<>();

    /** direction {@code out} (this SFU is the origin) or {@code in}; peer = the other SFU's pod name. */
    Pair pair(String direction, String peer) {
        return pairs.computeIfAbsent(direction + "\u0000" + peer, k -> new Pair(new LongAdder(), new LongAdder()));
    }

    void refused(String reason) { refused.computeIfAbsent(reason, k -> new LongAdder()).increment(); }

    long refusedCount(String reason) { LongAdder a = refused.get(reason); return a == null ? 0 : a.sum(); }

    /** Prometheus text; {@code layers} and {@code relays} are per "direction\0peer" from the live relays. */
    String prometheus(String self, Map<String, Long> layers, Map<String, Long> relays) {
        StringBuilder sb = new StringBuilder();
        Map<String, Pair> sorted = new TreeMap<>(pairs);
        sb.append("# HELP parley_sfu_relay_packets_total RTP packets relayed between this SFU and a peer SFU\n# TYPE parley_sfu_relay_packets_total counter\n");
        sorted.forEach((k, p) -> line(sb, "parley_sfu_relay_packets_total", self, k, p.packets().sum()));
        sb.append("# HELP parley_sfu_relay_bytes_total SRTP bytes relayed between this SFU and a peer SFU\n# TYPE parley_sfu_relay_bytes_total counter\n");
        sorted.forEach((k, p) -> line(sb, "parley_sfu_relay_bytes_total", self, k, p.bytes().sum()));
        sb.append("# HELP parley_sfu_relay_layers Track layers relayed now (one per track and simulcast layer)\n# TYPE parley_sfu_relay_layers gauge\n");
        new TreeMap<>(layers).forEach((k, v) -> line(sb, "parley_sfu_relay_layers", self, k, v));
        sb.append("# HELP parley_sfu_relays Relays now\n# TYPE parley_sfu_relays gauge\n");
        new TreeMap<>(relays).forEach((k, v) -> line(sb, "parley_sfu_relays", self, k, v));
        sb.append("# HELP parley_sfu_relay_refused_total Relay requests refused, by reason\n# TYPE parley_sfu_relay_refused_total counter\n");
        new TreeMap<>(refused).forEach((r, v) -> sb.append("parley_sfu_relay_refused_total{reason=\"").append(r).append("\"} ").append(v.sum()).append('\n'));
        return sb.toString();
    }

    private static void line(StringBuilder sb, String name, String self, String key, long v) {
        int z = key.indexOf('\u0000');
        String dir = key.substring(0, z), peer = key.substring(z + 1);
        String from = dir.equals("out") ? self : peer, to = dir.equals("out") ? peer : self;
        sb.append(name).append("{direction=\"").append(dir).append("\",from_sfu=\"").append(from).append("\",to_sfu=\"")
                .append(to).append("\"} ").append(v).append('\n');
    }
}
