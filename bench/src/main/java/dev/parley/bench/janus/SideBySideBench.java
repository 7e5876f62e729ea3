package dev.parley.bench.janus;

import dev.parley.bench.media.ClientTransport;
import dev.parley.bench.media.Publisher;
import dev.parley.bench.media.Subscriber;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Media forwarding side by side: the Parley SFU and Janus's VideoRoom, driven by the same load client (bench.media's
 * publishers and subscribers: ICE, DTLS 1.2, SRTP, one VP8 stream + Opus per publisher, no simulcast on either side),
 * alternating servers over several rounds per offered load (see bench/README-sfu.md, "Parley SFU vs Janus").
 *
 * <pre>
 * java -cp ... dev.parley.bench.janus.SideBySideBench --quick     (one-to-many 100, two rounds)
 * java -cp ... dev.parley.bench.janus.SideBySideBench             (both scenarios, three loads, three rounds)
 * </pre>
 * Per run: packets received by all subscribers per CPU-second of the server process (utime + stime over the same
 * window), loss at the receivers, end-to-end latency p50/p99 from the send time in each payload. Last line:
 * {@code sfu vs janus: parley/janus packets per CPU-second X (median of K rounds)}.
 */
public final class SideBySideBench {
    /** Audio 50 + video 4 packets every 30 ms (133) per publisher; keyframes (every 5 s and on PLI) add ~1-3 %. */
    static final double PACKETS_PER_PUBLISHER = 50 + 400 / 3.0;

    private SideBySideBench() {}

    record Result(String server, double pktPerSec, double user, double sys, double lossPct, double p50ms, double p99ms,
                  long samples, String srtp, double warmup, String loadAvg, String threads, String drops, boolean valid) {
        double cores() { return user + sys; }
        double perCpuSecond() { return cores() > 0 ? pktPerSec / cores() : 0; }
    }

    /**
     * A run counts only if the receivers got at least half the packets the pattern should produce: below that the
     * server (or the load client) was starved or dropping, and packets per CPU-second would compare idle processes.
     */
    static boolean valid(double pktPerSec, double expected) { return pktPerSec >= 0.5 * expected; }

    record Scenario(String name, int load) {
        /** Subscriber-side packets/s the pattern should produce. */
        double expected() {
            return name.equals("one-to-many") ? load * PACKETS_PER_PUBLISHER : load * 4 * 3 * PACKETS_PER_PUBLISHER;
        }
    }

    interface Factory { MediaServer open() throws Exception; }

    public static void main(String[] args) throws Exception {
        boolean quick = List.of(args).contains("--quick");
        int rounds = Integer.getInteger("bench.rounds", quick ? 2 : 3);
        int window = Integer.getInteger("bench.window.seconds", quick ? 10 : 20);
        int warmMin = Integer.getInteger("bench.warmup.seconds", quick ? 8 : 10);
        int warmMax = Integer.getInteger("bench.warmup.max.seconds", quick ? 30 : 45);
        List<Scenario> scenarios = new ArrayList<>();
        if (quick) {
            scenarios.add(new Scenario(System.getProperty("bench.quick.scenario", "one-to-many"), Integer.getInteger("bench.quick.load", 100)));
        } else {
            for (String l : System.getProperty("bench.one-to-many.loads", "50,100,150").split(",")) scenarios.add(new Scenario("one-to-many", Integer.parseInt(l.trim())));
            for (String l : System.getProperty("bench.meetings.loads", "5,10,20").split(",")) scenarios.add(new Scenario("meetings", Integer.parseInt(l.trim())));
        }
        Path jar = Path.of(System.getProperty("sfu.jar", "sfu-pod/target/sfu-pod.jar"));
        String ip = System.getProperty("janus.ip");
        if (ip == null || ip.isBlank()) throw new IllegalArgumentException("-Djanus.ip=<this machine's non-loopback IPv4 address> is required (vs-janus.sh sets it)");
        // -Dbench.servers=janus (or parley): one server only, to debug its signaling; the ratios are then n/a
        String only = System.getProperty("bench.servers", "parley,janus");
        Factory skip = () -> null;
        Factory parley = only.contains("parley") ? () -> new ParleyServer(jar) : skip;
        Factory janus = !only.contains("janus") ? skip : () -> new JanusServer(System.getProperty("janus.bin", "janus"), Path.of(System.getProperty("janus.config", "bench/media/janus")),
                Path.of("target", "janus-bench"), ip, System.getProperty("janus.rtp.ports", "41000-41999"), Integer.getInteger("janus.http.port", 18188));

        System.out.printf("sfu vs janus: %s, %d round(s) per load, %d s windows, warm-up %d-%d s, SRTP offered %s, no simulcast%n",
                quick ? "quick" : "full", rounds, window, warmMin, warmMax, ClientTransport.OFFERED_PROFILES);
        List<Double> ratios = new ArrayList<>();
        StringBuilder summary = new StringBuilder();
        for (Scenario sc : scenarios) {
            List<Double> pr = new ArrayList<>(), jr = new ArrayList<>(), rr = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                // ABBA order, so a drift in the machine's load does not favour one server
                boolean parleyFirst = r % 2 == 0;
                Result a = attempt(parleyFirst ? parley : janus, parleyFirst ? "parley" : "janus", sc, window, warmMin, warmMax);
                print(sc, r, rounds, a);
                Result b = attempt(parleyFirst ? janus : parley, parleyFirst ? "janus" : "parley", sc, window, warmMin, warmMax);
                print(sc, r, rounds, b);
                Result p = parleyFirst ? a : b, j = parleyFirst ? b : a;
                double ratio = p.valid() && j.valid() ? p.perCpuSecond() / j.perCpuSecond() : Double.NaN;
                pr.add(p.valid() ? p.perCpuSecond() : Double.NaN);
                jr.add(j.valid() ? j.perCpuSecond() : Double.NaN);
                rr.add(ratio);
                ratios.add(ratio);
                System.out.printf("  round %d: parley/janus %s%n", r + 1, Double.isNaN(ratio) ? "n/a (a run was invalid)" : String.format("%.2f", ratio));
            }
            String s = String.format("%s %d: packets per CPU-second parley %.0f, janus %.0f (medians of valid runs), parley/janus %.2f (median of %d rounds; %s)",
                    sc.name(), sc.load(), median(pr), median(jr), median(rr), countValid(rr), fmt(rr));
            summary.append(s).append('\n');
        }
        System.out.print(summary);
        // K counts the rounds whose two runs were both valid
        String last = String.format("sfu vs janus: parley/janus packets per CPU-second %.2f (median of %d rounds)", median(ratios), countValid(ratios));
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "sfu-vs-janus-results.txt"), Instant.now() + "\n" + summary + last + "\n",
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        System.out.println(last);
        System.exit(0);
    }

    private static void print(Scenario sc, int round, int rounds, Result r) {
        String line = String.format("[%s %d, round %d/%d] %-6s %8.0f pkt/s received (%.0f%% of expected), server CPU %.3f cores (user %.3f, sys %.3f): "
                        + "%.0f pkt per CPU-second; loss %.2f%%, latency p50 %.2f ms p99 %.2f ms (%d samples); SRTP %s; warm-up %.0f s; load avg %s",
                sc.name(), sc.load(), round + 1, rounds, r.server(), r.pktPerSec(), 100 * r.pktPerSec() / sc.expected(), r.cores(),
                r.user(), r.sys(), r.perCpuSecond(), r.lossPct(), r.p50ms(), r.p99ms(), r.samples(), r.srtp(), r.warmup(), r.loadAvg());
        System.out.println(line + (r.valid() ? "" : " -- INVALID: under half the expected packets, not counted"));
        System.out.println("    " + r.server() + " CPU by thread, cores: " + r.threads() + "; server drops so far: " + r.drops());
    }

    /** A run that fails (a connection not set up on a starved machine, a server not starting) is an invalid run. */
    private static Result attempt(Factory factory, String name, Scenario sc, int window, int warmMin, int warmMax) {
        try {
            return run(factory, sc, window, warmMin, warmMax);
        } catch (Exception e) {
            return new Result(name, 0, 0, 0, 0, 0, 0, 0, "-", 0, loadAverage(), "-", "run failed: " + e, false);
        }
    }

    /** One server, one scenario: connect, send media, warm up, measure one window, tear down. */
    static Result run(Factory factory, Scenario sc, int window, int warmMin, int warmMax) throws Exception {
        MediaServer opened = factory.open();
        if (opened == null) return new Result("-", 0, 0, 0, 0, 0, 0, 0, "-", 0, loadAverage(), "-", "-", false);
        Recorder latency = new Recorder(3);
        List<Publisher> pubs = new ArrayList<>();
        List<Subscriber> subs = new ArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        Thread[] sender = new Thread[1];
        // media stops and the client sockets close before the server does (no sends toward a closed port)
        Runnable stop = () -> {
            running.set(false);
            if (sender[0] != null) {
                try { sender[0].join(2000); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
            }
            for (Publisher p : pubs) if (p.transport != null) p.transport.close();
            for (Subscriber s : subs) if (s.transport != null) s.transport.close();
        };
        try (MediaServer server = opened) {
            try {
                return measure(server, sc, window, warmMin, warmMax, latency, pubs, subs, running, sender);
            } finally {
                stop.run();
            }
        }
    }

    private static Result measure(MediaServer server, Scenario sc, int window, int warmMin, int warmMax, Recorder latency,
                                  List<Publisher> pubs, List<Subscriber> subs, AtomicBoolean running, Thread[] sender) throws Exception {
        connect(server, sc, latency, pubs, subs);
        sender[0] = Thread.ofPlatform().daemon().name("media-sender").start(() -> send(pubs, subs, running));
        double warm = warmUp(server.pid(), warmMin, warmMax);
        latency.getIntervalHistogram();
        long[] tot0 = totals(subs);
        long rx0 = received(subs);
        Map<String, Double> threads0 = ProcCpu.threadSeconds(server.pid());
        double[] cpu0 = ProcCpu.userSystem(server.pid());
        long t0 = System.nanoTime();
        Thread.sleep(window * 1000L);
        double[] cpu1 = ProcCpu.userSystem(server.pid());
        Map<String, Double> threads1 = ProcCpu.threadSeconds(server.pid());
        long rx1 = received(subs);
        long t1 = System.nanoTime();
        long[] tot1 = totals(subs);
        Histogram h = latency.getIntervalHistogram();
        double secs = (t1 - t0) / 1e9;
        long expected = tot1[0] - tot0[0], got = tot1[1] - tot0[1];
        double loss = expected <= 0 ? 0 : Math.max(0, 100.0 * (expected - got) / expected);
        double pps = (rx1 - rx0) / secs;
        return new Result(server.name(), pps, (cpu1[0] - cpu0[0]) / secs, (cpu1[1] - cpu0[1]) / secs, loss,
                h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0, h.getTotalCount(),
                profiles(pubs, subs), warm, loadAverage(), ProcCpu.busiest(threads0, threads1, secs, 5), server.drops(),
                valid(pps, sc.expected()));
    }

    /** The same participants for both servers: publishers first, then the subscribers (4 set up at a time). */
    private static void connect(MediaServer server, Scenario sc, Recorder latency, List<Publisher> pubs, List<Subscriber> subs) throws Exception {
        ExecutorService setup = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> fs = new ArrayList<>();
            if (sc.name().equals("one-to-many")) {
                server.addMeeting("m0", 1);
                Publisher p = new Publisher("pub", false);
                server.publish("m0", p);
                pubs.add(p);
                for (int i = 0; i < sc.load(); i++) {
                    Subscriber s = new Subscriber("s" + i, 1, latency);
                    subs.add(s);
                    fs.add(setup.submit(() -> { server.subscribe("m0", s, List.of(p)); return null; }));
                }
            } else if (sc.name().equals("meetings")) {
                for (int m = 0; m < sc.load(); m++) {
                    String mid = "m" + m;
                    server.addMeeting(mid, 4);
                    List<Publisher> room = new ArrayList<>();
                    for (int i = 0; i < 4; i++) {
                        Publisher p = new Publisher(mid + "p" + i, false);
                        server.publish(mid, p);
                        room.add(p);
                        pubs.add(p);
                    }
                    for (int i = 0; i < 4; i++) {
                        List<Publisher> others = new ArrayList<>(room);
                        others.remove(i);
                        Subscriber s = new Subscriber(mid + "p" + i, 3, latency);
                        subs.add(s);
                        fs.add(setup.submit(() -> { server.subscribe(mid, s, others); return null; }));
                    }
                }
            } else {
                throw new IllegalArgumentException("unknown scenario " + sc.name() + " (one-to-many, meetings)");
            }
            for (Future<?> f : fs) f.get();
        } finally {
            setup.shutdownNow();
        }
    }

    /** Every publisher on one 10 ms clock; consent checks every 5 s (what SfuLoadBench does). */
    private static void send(List<Publisher> pubs, List<Subscriber> subs, AtomicBoolean running) {
        long tick = 0, next = System.nanoTime();
        while (running.get()) {
            for (Publisher p : pubs) p.tick(tick);
            if (tick % 500 == 0) {
                for (Publisher p : pubs) p.transport.check();
                for (Subscriber s : subs) s.transport.check();
            }
            tick++;
            next += 10_000_000L;
            long sleep = next - System.nanoTime();
            if (sleep > 0) LockSupport.parkNanos(sleep);
        }
    }

    /**
     * At least {@code min} s (keyframes, first subscriptions), then until the server's JIT compiler threads used under
     * 2 % of a core for 3 s in a row, at most {@code max} s — SfuLoadBench's rule, applied to both servers (Janus has no
     * compiler threads, so it waits the minimum).
     */
    private static double warmUp(long pid, int min, int max) throws InterruptedException {
        long start = System.nanoTime();
        Thread.sleep(min * 1000L);
        long end = start + max * 1_000_000_000L;
        double before = ProcCpu.compilerSeconds(pid);
        int quiet = 0;
        while (System.nanoTime() < end && quiet < 3) {
            Thread.sleep(1000);
            double now = ProcCpu.compilerSeconds(pid);
            quiet = now - before < 0.02 ? quiet + 1 : 0;
            before = now;
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private static long received(List<Subscriber> subs) {
        long n = 0;
        for (Subscriber s : subs) n += s.received;
        return n;
    }

    private static long[] totals(List<Subscriber> subs) {
        long e = 0, g = 0;
        for (Subscriber s : subs) { long[] t = s.totals(); e += t[0]; g += t[1]; }
        return new long[]{e, g};
    }

    /** Negotiated SRTP profiles, counted over all transports. */
    private static String profiles(List<Publisher> pubs, List<Subscriber> subs) {
        Map<String, Integer> n = new TreeMap<>();
        for (Publisher p : pubs) if (p.transport != null && p.transport.tx != null) n.merge(p.transport.tx.profile().name(), 1, Integer::sum);
        for (Subscriber s : subs) if (s.transport != null && s.transport.tx != null) n.merge(s.transport.tx.profile().name(), 1, Integer::sum);
        return n.toString();
    }

    static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        s.removeIf(d -> d.isNaN());
        if (s.isEmpty()) return Double.NaN;
        s.sort(null);
        int m = s.size() / 2;
        return s.size() % 2 == 1 ? s.get(m) : (s.get(m - 1) + s.get(m)) / 2;
    }

    private static int countValid(List<Double> v) {
        int n = 0;
        for (double d : v) if (!Double.isNaN(d)) n++;
        return n;
    }

    private static String fmt(List<Double> v) {
        StringBuilder b = new StringBuilder();
        for (double d : v) b.append(b.isEmpty() ? "" : ", ").append(Double.isNaN(d) ? "n/a" : String.format("%.2f", d));
        return b.toString();
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }
}
