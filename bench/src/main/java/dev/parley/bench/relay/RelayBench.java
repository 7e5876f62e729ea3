package dev.parley.bench.relay;

import dev.parley.bench.media.Publisher;
import dev.parley.bench.media.Subscriber;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Added latency per relay hop and relay CPU per relayed packet, side by side with direct forwarding in one run
 * (bench/relay/README.md). Two real SFUs on loopback (in this JVM, one media worker each); N publishers (VP8 simulcast
 * q/h/f + Opus, the load client's pattern) on SFU A; K subscribers on A get them directly, K subscribers on B get
 * them through one relay A → B carrying every track and layer. The publishers stamp each packet with its send time
 * (one clock: same JVM), so a subscriber on B sees exactly one relay hop more than one on A: added latency per hop
 * = relayed − direct, at p50 and p99. CPU: each SFU's media thread (ThreadMXBean), per packet it handled.
 *
 * <p>{@code RelayBench [--quick] [publishers] [subscribersPerSfu] [seconds]}; --quick = 3 publishers, 4 + 4
 * subscribers, 5 s warm-up, 15 s measured.
 */
public final class RelayBench {
    public static void main(String[] args) throws Exception {
        List<String> a = new ArrayList<>(List.of(args));
        boolean quick = a.remove("--quick");
        int pubs = a.size() > 0 ? Integer.parseInt(a.get(0)) : quick ? 3 : 6;
        int subsPerSfu = a.size() > 1 ? Integer.parseInt(a.get(1)) : quick ? 4 : 10;
        int seconds = a.size() > 2 ? Integer.parseInt(a.get(2)) : quick ? 15 : 60;
        int warmup = quick ? 5 : 20;
        String meeting = "bench-relay";
        Recorder direct = new Recorder(3), relayed = new Recorder(3);
        try (RelayLab lab = new RelayLab()) {
            List<Publisher> ps = new ArrayList<>();
            List<Subscriber> all = new ArrayList<>();
            for (int i = 0; i < pubs; i++) ps.add(lab.publish(lab.a, meeting, "p" + i));
            for (int i = 0; i < subsPerSfu; i++) all.add(lab.subscribe(lab.a, meeting, "da" + i, pubs, direct).subscriber());
            for (int i = 0; i < subsPerSfu; i++) all.add(lab.subscribe(lab.b, meeting, "rb" + i, pubs, relayed).subscriber());
            List<RelayLab.TrackLayers> tracks = new ArrayList<>();
            for (int i = 0; i < pubs; i++) {
                tracks.add(new RelayLab.TrackLayers("p" + i + ":0", "audio", 1, List.of(0)));
                tracks.add(new RelayLab.TrackLayers("p" + i + ":1", "video", 3, List.of(0, 1, 2)));
            }
            lab.relay("bench", meeting, lab.a, lab.b, tracks);
            Thread driver = lab.drive(ps, all);
            Thread.sleep(warmup * 1000L);
            direct.getIntervalHistogram();
            relayed.getIntervalHistogram();
            Snapshot s0 = Snapshot.take(lab, ps);
            double load0 = loadAverage();
            Thread.sleep(seconds * 1000L);
            Snapshot s1 = Snapshot.take(lab, ps);
            Histogram hd = direct.getIntervalHistogram(), hr = relayed.getIntervalHistogram();
            driver.interrupt();
            double load1 = loadAverage();

            double secs = (s1.nanos - s0.nanos) / 1e9;
            long fwdA = s1.forwardedA - s0.forwardedA, fwdB = s1.forwardedB - s0.forwardedB;
            long relayOut = s1.relayOut - s0.relayOut, relayIn = s1.relayIn - s0.relayIn;
            double cpuA = (s1.cpuA - s0.cpuA) / 1e3, cpuB = (s1.cpuB - s0.cpuB) / 1e3;   // µs
            System.out.println(String.format(Locale.ROOT,
                    "relay bench: %d publishers (VP8 q/h/f + Opus) on A, %d subscribers on A (direct) and %d on B (through 1 relay hop), %.0f s measured%n"
                    + "  packets/s: A forwarded %.0f + relayed out %.0f; B relayed in %.0f, forwarded %.0f%n"
                    + "  end-to-end latency (publisher stamp → subscriber, µs): direct p50 %d p99 %d (n=%d); relayed p50 %d p99 %d (n=%d)%n"
                    + "  ADDED PER RELAY HOP: p50 %d µs, p99 %d µs%n"
                    + "  CPU (media thread): A %.2f µs per packet sent (forwarded + relayed out), %.1f%% of a core; "
                    + "B %.2f µs per packet sent to its subscribers, %.2f µs per relayed packet received (B's whole media thread ÷ relayed in), %.1f%% of a core%n"
                    + "  relay packets per packet the publishers sent: %.3f (every layer relayed: one copy per packet, not one per subscriber on B)%n"
                    + "  load average %.2f → %.2f (2 cores shared with other work)",
                    pubs, subsPerSfu, subsPerSfu, secs,
                    fwdA / secs, relayOut / secs, relayIn / secs, fwdB / secs,
                    hd.getValueAtPercentile(50), hd.getValueAtPercentile(99), hd.getTotalCount(),
                    hr.getValueAtPercentile(50), hr.getValueAtPercentile(99), hr.getTotalCount(),
                    hr.getValueAtPercentile(50) - hd.getValueAtPercentile(50), hr.getValueAtPercentile(99) - hd.getValueAtPercentile(99),
                    cpuA / Math.max(1, fwdA + relayOut), cpuA / 1e6 / secs * 100,
                    cpuB / Math.max(1, fwdB), cpuB / Math.max(1, relayIn), cpuB / 1e6 / secs * 100,
                    (double) relayOut / Math.max(1, s1.published - s0.published), load0, load1));
            for (Publisher p : ps) p.transport.close();
            for (Subscriber s : all) s.transport.close();
        }
    }

    private static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (Exception e) {
            return -1;
        }
    }

    private record Snapshot(long nanos, long cpuA, long cpuB, long forwardedA, long forwardedB, long relayOut, long relayIn, long published) {
        static Snapshot take(RelayLab lab, List<Publisher> ps) {
            long sent = 0;
            for (Publisher p : ps) sent += p.sent;
            String ma = lab.metrics(lab.a), mb = lab.metrics(lab.b);
            return new Snapshot(System.nanoTime(), RelayLab.workerCpuNanos(lab.a), RelayLab.workerCpuNanos(lab.b),
                    (long) RelayLab.series(ma, "parley_sfu_forwarded_packets_total"),
                    (long) RelayLab.series(mb, "parley_sfu_forwarded_packets_total"),
                    (long) RelayLab.series(ma, "parley_sfu_relay_packets_total{direction=\"out\",from_sfu=\"sfu-a\",to_sfu=\"sfu-b\"}"),
                    (long) RelayLab.series(mb, "parley_sfu_relay_packets_total{direction=\"in\",from_sfu=\"sfu-a\",to_sfu=\"sfu-b\"}"), sent);
        }
    }
}
