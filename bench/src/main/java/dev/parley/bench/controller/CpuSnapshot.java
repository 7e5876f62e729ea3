package dev.parley.bench.controller;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * CPU time of the controller process split by what its threads do (read from {@code /proc/PID/task/*}: thread
 * name and utime+stime), plus the CPU of this benchmark's PostgreSQL and etcd child processes and of this JVM
 * itself (the load generator and the SFU stub: it must not be what limits the run). CPU time, unlike
 * joins per wall-clock second, stays meaningful on a machine shared with other work.
 */
record CpuSnapshot(Map<String, Long> controllerMillis, long postgresMillis, long etcdMillis, long benchMillis,
                   Map<String, Long> benchThreadMillis) {
    /** Thread-name prefixes (as {@code comm} shows them, at most 15 characters) → category. */
    private static final String[][] CATEGORIES = {
            {"C1 CompilerThre", "JIT compiler"}, {"C2 CompilerThre", "JIT compiler"},
            {"GC Thread", "GC"}, {"G1 ", "GC"},
            {"default-eventLo", "HTTP server event loops (Netty)"},
            // on the epoll transport Micronaut's loop threads keep Netty's default NIO-looking names
            {"default-nioEven", "HTTP server event loops (Netty)"}, {"default-epollEv", "HTTP server event loops (Netty)"},
            {"ForkJoinPool-", "request handlers (virtual threads: routing, SQL, signing)"},
            {"HttpClient-", "SFU grant pushes (JDK HttpClient)"}, {"sfu-answers", "SFU grant pushes (kept-alive HTTP/1.1)"},
            {"vert.x-eventloo", "etcd client"}, {"jetcd-", "etcd client"}, {"grpc-", "etcd client"},
    };
    /** The same for this JVM (the load loop runs on the calling thread and measures itself). */
    private static final String[][] BENCH_CATEGORIES = {
            {"sfu-stub", "SFU stub"}, {"HTTP-Dispatcher", "SFU stub"},
            {"C1 CompilerThre", "JIT compiler"}, {"C2 CompilerThre", "JIT compiler"},
            {"GC Thread", "GC"}, {"G1 ", "GC"},
            {"vert.x-", "etcd client (stub registration)"}, {"jetcd-", "etcd client (stub registration)"},
            {"grpc-", "etcd client (stub registration)"}, {"etcd-", "etcd client (stub registration)"},
    };
    private static final long TICK_MS = 10; // USER_HZ = 100 on Linux

    static CpuSnapshot take(ProcessHandle controller, int postgresPort) {
        Map<String, Long> byCat = byThread(controller, CATEGORIES);
        long[] pgEtcd = new long[2];
        // pg_ctl daemonizes the postmaster: find it by its port among all processes, then count its backends
        ProcessHandle.allProcesses().filter(p -> p.info().command().orElse("").endsWith("/postgres")
                        && p.info().arguments().map(a -> String.join(" ", a).contains(Integer.toString(postgresPort))).orElse(false))
                .forEach(pm -> {
                    pgEtcd[0] += cpuMillis(pm);
                    pm.descendants().forEach(b -> pgEtcd[0] += cpuMillis(b));
                });
        ProcessHandle.current().descendants().filter(p -> p.info().command().orElse("").endsWith("etcd"))
                .forEach(p -> pgEtcd[1] += cpuMillis(p));
        return new CpuSnapshot(byCat, pgEtcd[0], pgEtcd[1], cpuMillis(ProcessHandle.current()),
                byThread(ProcessHandle.current(), BENCH_CATEGORIES));
    }

    /** CPU of a process's live threads by category of thread name ({@code /proc/PID/task/*}). */
    private static Map<String, Long> byThread(ProcessHandle p, String[][] categories) {
        Map<String, Long> byCat = new LinkedHashMap<>();
        for (String[] c : categories) {
            byCat.put(c[1], 0L);
        }
        byCat.put("other threads", 0L);
        Path tasks = Path.of("/proc", Long.toString(p.pid()), "task");
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(tasks)) {
            for (Path t : ds) {
                try {
                    String comm = Files.readString(t.resolve("comm")).strip();
                    long ms = ticks(Files.readString(t.resolve("stat"))) * TICK_MS;
                    byCat.merge(category(comm, categories), ms, Long::sum);
                } catch (IOException threadGone) {
                    // a thread that ended between listing and reading: its time is in no category
                }
            }
        } catch (IOException e) {
            // not Linux: the whole process only
            byCat.put("other threads", cpuMillis(p));
        }
        return byCat;
    }

    private static long cpuMillis(ProcessHandle p) {
        return p.info().totalCpuDuration().map(d -> d.toMillis()).orElse(0L);
    }

    private static String category(String comm, String[][] categories) {
        for (String[] c : categories) {
            if (comm.startsWith(c[0])) {
                return c[1];
            }
        }
        return "other threads";
    }

    /** utime + stime from /proc/.../stat (fields 14 and 15; the name in parentheses may contain spaces). */
    private static long ticks(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    CpuSnapshot minus(CpuSnapshot before) {
        return new CpuSnapshot(minus(controllerMillis, before.controllerMillis), postgresMillis - before.postgresMillis,
                etcdMillis - before.etcdMillis, benchMillis - before.benchMillis,
                minus(benchThreadMillis, before.benchThreadMillis));
    }

    private static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> d = new LinkedHashMap<>();
        after.forEach((k, v) -> d.put(k, v - before.getOrDefault(k, 0L)));
        return d;
    }

    long controllerTotal() {
        return controllerMillis.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * The report; {@code loadLoopMillis} (of it {@code loadLoopUserMillis} in user mode) is the CPU the load loop
     * measured on its own thread (the bench JVM's
     * threads are otherwise split by name; "other" is the rest of the process: main thread, ended threads).
     */
    String report(long joins, long loadLoopMillis, long loadLoopUserMillis) {
        StringBuilder sb = new StringBuilder();
        long total = controllerTotal();
        long jit = controllerMillis.getOrDefault("JIT compiler", 0L);
        double per1000 = joins == 0 ? 0 : total / (double) joins; // ms per join == s per 1000 joins
        sb.append(String.format("controller CPU: %.1f s for %d joins = %.2f CPU-s per 1000 joins (%.2f ms per join; incl."
                        + " its share of meeting create/host join/revoke and the 1 s grant renewals) -> ~%.0f joins/s per"
                        + " fully available core%n", total / 1000.0, joins, per1000, per1000,
                total == 0 ? 0 : joins * 1000.0 / total));
        sb.append(String.format("controller CPU without JIT compilation: %.2f CPU-s per 1000 joins -> ~%.0f joins/s per core%n",
                joins == 0 ? 0 : (total - jit) / (double) joins, total - jit <= 0 ? 0 : joins * 1000.0 / (total - jit)));
        controllerMillis.forEach((k, v) -> sb.append(String.format("  controller CPU %-58s %6.2f CPU-s/1000 joins (%4.1f %%)%n",
                k, joins == 0 ? 0 : v / (double) joins, total == 0 ? 0 : v * 100.0 / total)));
        sb.append(String.format("PostgreSQL CPU: %.2f CPU-s per 1000 joins; etcd CPU: %.2f CPU-s per 1000 joins; "
                        + "load generator + SFU stub (bench JVM): %.2f CPU-s per 1000 joins%n",
                joins == 0 ? 0 : postgresMillis / (double) joins, joins == 0 ? 0 : etcdMillis / (double) joins,
                joins == 0 ? 0 : benchMillis / (double) joins));
        Map<String, Long> bench = new LinkedHashMap<>();
        bench.put("load loop, user mode (HTTP client, flow, tokens, histograms)", loadLoopUserMillis);
        bench.put("load loop, kernel (socket syscalls incl. loopback TCP)", Math.max(0, loadLoopMillis - loadLoopUserMillis));
        long named = loadLoopMillis;
        for (Map.Entry<String, Long> e : benchThreadMillis.entrySet()) {
            if (!e.getKey().equals("other threads")) {
                bench.put(e.getKey(), e.getValue());
                named += e.getValue();
            }
        }
        bench.put("other (main thread's rest, ended threads)", Math.max(0, benchMillis - named));
        bench.forEach((k, v) -> sb.append(String.format("  bench JVM CPU %-58s %6.2f CPU-s/1000 joins (%4.1f %%)%n",
                k, joins == 0 ? 0 : v / (double) joins, benchMillis == 0 ? 0 : v * 100.0 / benchMillis)));
        return sb.toString();
    }
}
