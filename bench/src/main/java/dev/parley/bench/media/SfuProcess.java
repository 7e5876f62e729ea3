package dev.parley.bench.media;

import dev.parley.testsupport.net.FreePorts;
import dev.parley.testsupport.process.ChildProcesses;
import dev.parley.testsupport.process.StandaloneSfuEnv;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Runs sfu-pod.jar as its own process (so its CPU time can be read from /proc/&lt;pid&gt;/stat) on loopback. */
public final class SfuProcess implements AutoCloseable {
    private final Process process;
    public final int internalPort;

    public SfuProcess(Path jar, String secret, String ticketJwk, String pod) throws IOException {
        this(jar, secret, ticketJwk, pod, 0);
    }

    /** @param workers the SFU's media workers ({@code PARLEY_SFU_WORKERS}); 0: the SFU's default (one per core) */
    public SfuProcess(Path jar, String secret, String ticketJwk, String pod, int workers) throws IOException {
        internalPort = FreePorts.tcp();
        String java = ProcessHandle.current().info().command().orElse("java");   // the same JDK as the bench
        List<String> cmd = new ArrayList<>(List.of(java, "-Xms512m", "-Xmx1g", "-XX:+UseParallelGC",
                "--enable-native-access=ALL-UNNAMED"));
        // extra JVM options for the SFU, e.g. -XX:StartFlightRecording=... to profile it
        String extra = System.getenv("PARLEY_BENCH_SFU_JVM_OPTS");
        if (extra != null && !extra.isBlank()) cmd.addAll(List.of(extra.trim().split("\\s+")));
        cmd.addAll(List.of("-jar", jar.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        StandaloneSfuEnv.apply(pb.environment(), pod, internalPort, secret, ticketJwk);
        if (workers > 0) pb.environment().put("PARLEY_SFU_WORKERS", Integer.toString(workers));
        else pb.environment().remove("PARLEY_SFU_WORKERS");
        pb.redirectErrorStream(true).redirectOutput(Path.of("target", "sfu-bench-sfu.log").toFile());
        Files.createDirectories(Path.of("target"));
        process = pb.start();
    }

    public long pid() { return process.pid(); }

    /** utime + stime of the SFU process in seconds. */
    double cpuSeconds() throws IOException {
        double[] us = userSystemSeconds();
        return us[0] + us[1];
    }

    /** utime and stime (kernel: syscalls, loopback delivery to the receivers) of the SFU process in seconds. */
    public double[] userSystemSeconds() throws IOException {
        String stat = Files.readString(Path.of("/proc/" + process.pid() + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // after "pid (comm) ", field 3 is index 0: utime is field 14 → index 11, stime field 15 → index 12
        return new double[]{Long.parseLong(f[11]) / 100.0, Long.parseLong(f[12]) / 100.0};
    }

    /**
     * CPU seconds (utime + stime) per thread name of the SFU process, from /proc/&lt;pid&gt;/task/*: shows which part of
     * the process (media event loop, JIT compilers, GC, internal API) the measured CPU went to. Threads of the same
     * name (GC workers, compiler threads) are summed. Values: {user, system}.
     */
    public Map<String, double[]> threadCpuSeconds() {
        Map<String, double[]> r = new java.util.TreeMap<>();
        try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc/" + process.pid() + "/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replaceAll("[0-9]+$", "#");
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    double[] us = r.computeIfAbsent(name, k -> new double[2]);
                    us[0] += Long.parseLong(f[11]) / 100.0;
                    us[1] += Long.parseLong(f[12]) / 100.0;
                } catch (IOException | RuntimeException gone) {
                    // the thread ended between listing and reading
                }
            }
        } catch (IOException e) {
            return r;
        }
        return r;
    }

    @Override
    public void close() {
        ChildProcesses.stop(process, Duration.ofSeconds(5));
    }
}
