package dev.parley.bench.media;

import com.nimbusds.jose.jwk.ECKey;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.platform.ticket.TicketSigner;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Loopback load test of sfu-pod.jar with real ICE-lite, DTLS-SRTP and RTP (see bench/README-sfu.md).
 *
 * <pre>
 * java -cp bench/target/bench.jar dev.parley.bench.media.SfuLoadBench one-to-many 100 20
 * java -cp ... SfuLoadBench meetings 20 20      (20 meetings of 4 people, 20 s)
 * </pre>
 * Reports forwarded packets/s, the SFU process's CPU (cores used, from /proc/pid/stat), packets/s per core,
 * client-observed latency p50/p99 (an upper bound of the SFU-added latency: it includes both clients' socket
 * paths) and loss.
 */
public final class SfuLoadBench {
    private SfuLoadBench() {}

    /** One run's figures: forwarded packets/s, the SFU's CPU (cores) and the load client's (this JVM's) CPU (cores). */
    record Result(int workers, double forwardedPps, double sfuCores, double clientCores, double lossPct, double jitCores) {
        /** Forwarded packets per SFU core, the JIT compiler's threads left out (they run for a while after warm-up). */
        double perCoreWithoutJit() { return sfuCores - jitCores > 0 ? forwardedPps / (sfuCores - jitCores) : 0; }
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "one-to-many";
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 15;
        Path jar = Path.of(System.getProperty("sfu.jar", "sfu-pod/target/sfu-pod.jar"));
        String workers = System.getProperty("bench.workers");
        String baseline = System.getProperty("bench.baseline.jar");
        if (baseline != null && !baseline.isBlank()) {
            JarComparison.run(mode, n, seconds, Path.of(baseline), jar, Integer.getInteger("bench.new.workers", 0),
                    Integer.getInteger("bench.old.workers", 0), Integer.getInteger("bench.rounds", 4));
        } else if (Boolean.getBoolean("bench.e2ee")) {
            E2eeComparison.run(mode, n, seconds, jar, Integer.getInteger("bench.rounds", 4));
        } else if (workers == null || workers.isBlank()) {
            run(mode, n, seconds, jar, 0);
        } else {
            WorkerComparison.run(mode, n, seconds, jar, workers, Integer.getInteger("bench.rounds", 3));
        }
        System.exit(0);
    }

    /** One run against a fresh SFU process with {@code workers} media workers (0: the SFU's default). */
    static Result run(String mode, int n, int seconds, Path jar, int workers) throws Exception {
        String secret = "bench-" + UUID.randomUUID();
        ECKey key = TicketKeys.generate();
        TicketSigner signer = new TicketSigner(key);
        String pod = "sfu-bench";
        Recorder latency = new Recorder(3);
        List<Publisher> pubs = new ArrayList<>();
        List<Subscriber> subs = new ArrayList<>();
        Map<String, List<String>> meetings = new java.util.concurrent.ConcurrentHashMap<>();
        try (SfuProcess sfu = new SfuProcess(jar, secret, key.toPublicJWK().toJSONString(), pod, workers)) {
            ControlClient ctl = new ControlClient(sfu.internalPort, secret, signer, pod);
            long wait = System.nanoTime() + 30_000_000_000L;
            while (!ctl.ready()) {
                if (System.nanoTime() > wait) throw new IllegalStateException("SFU did not start: see target/sfu-bench-sfu.log");
                Thread.sleep(200);
            }
            // grants: renew every second (ttl 3 s), as the controller does
            Thread renewer = Thread.ofPlatform().daemon().start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    try {
                        for (Map.Entry<String, List<String>> e : List.copyOf(meetings.entrySet())) {
                            List<String> pids;
                            synchronized (pubs) { pids = List.copyOf(e.getValue()); }
                            if (!pids.isEmpty()) ctl.renew(e.getKey(), pids);
                        }
                        Thread.sleep(1000);
                    } catch (InterruptedException e) {
                        return;
                    } catch (IOException e) {
                        System.err.println("grant renewal failed: " + e.getMessage());
                    }
                }
            });
            ExecutorService setup = Executors.newFixedThreadPool(4);
            if (mode.equals("one-to-many")) {
                meetings.put("m0", new ArrayList<>());
                join(ctl, "m0", new Publisher("pub"), null, pubs, subs, meetings);
                List<Future<?>> fs = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    Subscriber s = new Subscriber("s" + i, 1, latency);
                    fs.add(setup.submit(() -> { join(ctl, "m0", null, s, pubs, subs, meetings); return null; }));
                }
                for (Future<?> f : fs) f.get();
            } else {
                List<Future<?>> fs = new ArrayList<>();
                for (int m = 0; m < n; m++) {
                    String mid = "m" + m;
                    meetings.put(mid, new ArrayList<>());
                    for (int p = 0; p < 4; p++) join(ctl, mid, new Publisher(mid + "p" + p), null, pubs, subs, meetings);
                    for (int p = 0; p < 4; p++) {
                        Subscriber s = new Subscriber(mid + "p" + p, 3, latency);
                        fs.add(setup.submit(() -> { join(ctl, mid, null, s, pubs, subs, meetings); return null; }));
                    }
                }
                for (Future<?> f : fs) f.get();
            }
            setup.shutdown();
            // media: every publisher on one 10 ms clock; consent checks every 5 s
            java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
            Thread sender = Thread.ofPlatform().daemon().start(() -> {
                long tick = 0, next = System.nanoTime();
                while (running.get()) {
                    for (Publisher p : pubs) p.tick(tick);
                    if (tick % 500 == 0) {
                        for (Publisher p : pubs) p.transport.check();
                        for (Subscriber s : subs) { s.transport.check(); s.remb(); }
                    }
                    tick++;
                    next += 10_000_000L;
                    long sleep = next - System.nanoTime();
                    if (sleep > 0) java.util.concurrent.locks.LockSupport.parkNanos(sleep);
                }
            });
            double warmup = warmUp(sfu);
            latency.getIntervalHistogram();
            long[] lossBefore = totals(subs);
            Map<String, double[]> threads0 = sfu.threadCpuSeconds();
            double[] us0 = sfu.userSystemSeconds();
            double cpu0 = us0[0] + us0[1];
            double client0 = ownCpuSeconds();
            String m0 = ctl.metrics();
            long fwd0 = forwarded(m0);
            long[] hist0 = histogram(m0);
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            double[] us1 = sfu.userSystemSeconds();
            Map<String, double[]> threads1 = sfu.threadCpuSeconds();
            double cpu1 = us1[0] + us1[1];
            double client1 = ownCpuSeconds();
            String m1 = ctl.metrics();
            long fwd1 = forwarded(m1);
            long[] hist1 = histogram(m1);
            long t1 = System.nanoTime();
            long[] lossAfter = totals(subs);
            Histogram h = latency.getIntervalHistogram();
            running.set(false);
            sender.join(2000);
            renewer.interrupt();
            double secs = (t1 - t0) / 1e9;
            double pps = (fwd1 - fwd0) / secs;
            double cores = (cpu1 - cpu0) / secs;
            // the JIT compiling late (C2 catching up on setup code on a loaded machine) is not per-packet cost
            double jitCores = (compilerSeconds(threads1) - compilerSeconds(threads0)) / secs;
            long expected = lossAfter[0] - lossBefore[0], got = lossAfter[1] - lossBefore[1];
            double lossPct = expected <= 0 ? 0 : Math.max(0, 100.0 * (expected - got) / expected);
            String line = String.format("%s %s n=%d: forwarded %.0f pkt/s, SFU CPU %.2f cores (user %.2f, sys %.2f), %.0f pkt/s per core, "
                            + "SFU receipt-to-send p50 <= %s p99 <= %s, "
                            + "client end-to-end p50 %.2f ms p99 %.2f ms max %.2f ms (%d samples), loss %.3f%%, transports %d, jar %s, load avg %s",
                    Instant.now(), mode, n, pps, cores, (us1[0] - us0[0]) / secs, (us1[1] - us0[1]) / secs, cores > 0 ? pps / cores : 0,
                    bucketPercentile(hist0, hist1, 0.5), bucketPercentile(hist0, hist1, 0.99), h.getValueAtPercentile(50) / 1000.0,
                    h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0, h.getTotalCount(), lossPct,
                    pubs.size() + subs.size(), jar.getFileName(), loadAverage()) + String.format(", warm-up %.0f s, srtp offered %s", warmup, ClientTransport.OFFERED_PROFILES);
            line += String.format("; without JIT compiler threads (%.3f cores): %.0f pkt/s per core", jitCores,
                    cores - jitCores > 0 ? pps / (cores - jitCores) : 0);
            double clientCores = (client1 - client0) / secs;
            line += String.format("; SFU media workers %s, load client CPU %.2f cores", workers == 0 ? "default" : workers, clientCores);
            System.out.println(line);
            for (String l : m1.split("\n")) if (l.startsWith("parley_sfu_drops_total{")) System.out.println("  " + l);
            System.out.println("  SFU CPU by thread, cores (user/sys): " + threadShares(threads0, threads1, secs));
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", "sfu-bench-results.txt"), line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            return new Result(workers, pps, cores, clientCores, lossPct, jitCores);
        } finally {
            for (Publisher p : pubs) if (p.transport != null) p.transport.close();
            for (Subscriber s : subs) if (s.transport != null) s.transport.close();
        }
    }

    /** utime + stime of this JVM (the load client: publishers, subscribers, DTLS/SRTP) in seconds. */
    private static double ownCpuSeconds() throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
    }

    private static void join(ControlClient ctl, String meeting, Publisher pub, Subscriber sub, List<Publisher> pubs,
                             List<Subscriber> subs, Map<String, List<String>> meetings) throws Exception {
        if (pub != null) {
            ClientTransport t = new ClientTransport(pub);
            pub.transport = t;
            t.connect(ctl.createTransport(meeting, pub.pid, "publish", pub.offer(t)));
            synchronized (pubs) { pubs.add(pub); meetings.get(meeting).add(pub.pid); }
        }
        if (sub != null) {
            ClientTransport t = new ClientTransport(sub);
            sub.transport = t;
            t.connect(ctl.createTransport(meeting, sub.pid, "subscribe", sub.offer(t)));
            synchronized (subs) { subs.add(sub); }
            synchronized (pubs) { if (!meetings.get(meeting).contains(sub.pid)) meetings.get(meeting).add(sub.pid); }
        }
    }

    /**
     * Warm-up: keyframes and layer selection, then the JIT. On a shared 2-core machine C2 keeps compiling the
     * connection-setup code (DTLS, EC math, JSON) for tens of seconds after the transports are up; that one-time
     * cost is not the SFU's steady-state cost per packet, so the window starts once the SFU's compiler threads
     * were (nearly) idle for three seconds — at least {@code bench.warmup.seconds} (10), at most
     * {@code bench.warmup.max.seconds} (45). Returns the warm-up in seconds.
     */
    private static double warmUp(SfuProcess sfu) throws InterruptedException {
        long start = System.nanoTime();
        Thread.sleep(Long.getLong("bench.warmup.seconds", 10) * 1000L);
        long max = start + Long.getLong("bench.warmup.max.seconds", 45) * 1_000_000_000L;
        double before = compilerSeconds(sfu.threadCpuSeconds());
        int quiet = 0;
        while (System.nanoTime() < max && quiet < 3) {
            Thread.sleep(1000);
            double now = compilerSeconds(sfu.threadCpuSeconds());
            quiet = now - before < 0.02 ? quiet + 1 : 0;    // under 2 % of a core compiling, three seconds running
            before = now;
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private static double compilerSeconds(Map<String, double[]> threads) {
        double s = 0;
        for (Map.Entry<String, double[]> e : threads.entrySet()) {
            if (e.getKey().contains("CompilerThre")) s += e.getValue()[0] + e.getValue()[1];
        }
        return s;
    }

    /** Per-thread-name CPU over the window in cores (user/system), largest first; threads under 0.005 cores left out. */
    private static String threadShares(Map<String, double[]> before, Map<String, double[]> after, double secs) {
        StringBuilder sb = new StringBuilder();
        after.entrySet().stream()
                .map(e -> {
                    double[] b = before.getOrDefault(e.getKey(), new double[2]);
                    return Map.entry(e.getKey(), new double[]{(e.getValue()[0] - b[0]) / secs, (e.getValue()[1] - b[1]) / secs});
                })
                .filter(e -> e.getValue()[0] + e.getValue()[1] >= 0.005)
                .sorted((x, y) -> Double.compare(y.getValue()[0] + y.getValue()[1], x.getValue()[0] + x.getValue()[1]))
                .forEach(e -> sb.append(String.format("%s %.3f (%.3f/%.3f), ", e.getKey(), e.getValue()[0] + e.getValue()[1],
                        e.getValue()[0], e.getValue()[1])));
        return sb.isEmpty() ? "-" : sb.substring(0, sb.length() - 2);
    }

    private static long[] totals(List<Subscriber> subs) {
        long e = 0, g = 0;
        for (Subscriber s : subs) { long[] t = s.totals(); e += t[0]; g += t[1]; }
        return new long[]{e, g};
    }

    /**
     * Cumulative bucket counts of parley_sfu_forward_latency_seconds (bounds: SfuMetrics.LATENCY_BUCKETS_US). Jars
     * built before 2026-12-07 export the same buckets as parley_sfu_forward_latency_us; reading both keeps old-vs-new
     * side-by-side runs possible.
     */
    private static long[] histogram(String metrics) {
        List<Long> r = new ArrayList<>();
        for (String l : metrics.split("\n")) {
            if (l.startsWith("parley_sfu_forward_latency_seconds_bucket") || l.startsWith("parley_sfu_forward_latency_us_bucket")) r.add((long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)));
        }
        return r.stream().mapToLong(Long::longValue).toArray();
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    /** Percentile over the measurement window from two cumulative histograms, as the bucket's upper bound. */
    private static String bucketPercentile(long[] before, long[] after, double q) {
        long[] bounds = dev.parley.sfu.metrics.SfuMetrics.LATENCY_BUCKETS_US;
        if (before.length == 0 || after.length != before.length) return "n/a";
        long total = after[after.length - 1] - before[before.length - 1];
        if (total <= 0) return "n/a";
        for (int i = 0; i < after.length; i++) {
            if (after[i] - before[i] >= Math.ceil(q * total)) return i < bounds.length ? String.format("%.3f ms", bounds[i] / 1000.0) : "inf";
        }
        return "inf";
    }

    private static long forwarded(String metrics) {
        for (String l : metrics.split("\n")) {
            if (l.startsWith("parley_sfu_forwarded_packets_total ")) return (long) Double.parseDouble(l.substring(l.indexOf(' ') + 1));
        }
        return 0;
    }
}
