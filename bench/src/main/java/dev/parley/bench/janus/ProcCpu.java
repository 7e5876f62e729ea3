package dev.parley.bench.janus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * CPU time of a server process from /proc, read the same way for both servers: utime + stime of the whole process
 * (all threads; for the JVM also JIT, GC and the internal API) in seconds, and the part of its compiler threads.
 */
final class ProcCpu {
    /** USER_HZ: /proc reports clock ticks of 1/100 s on Linux. */
    private static final double HZ = 100.0;

    private ProcCpu() {}

    /** {user, system} seconds. */
    static double[] userSystem(long pid) throws IOException {
        String[] f = fields(Files.readString(Path.of("/proc/" + pid + "/stat")));
        return new double[]{Long.parseLong(f[11]) / HZ, Long.parseLong(f[12]) / HZ};
    }

    /** CPU seconds of threads named like HotSpot's JIT compiler threads (none in Janus). */
    static double compilerSeconds(long pid) {
        double s = 0;
        for (Map.Entry<String, Double> e : threadSeconds(pid).entrySet()) if (e.getKey().contains("CompilerThre")) s += e.getValue();
        return s;
    }

    /** utime + stime per thread name (trailing digits folded: GC workers, compiler threads, event loops) in seconds. */
    static Map<String, Double> threadSeconds(long pid) {
        Map<String, Double> r = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replaceAll("[0-9]+$", "#");
                    String[] f = fields(stat);
                    r.merge(name, (Long.parseLong(f[11]) + Long.parseLong(f[12])) / HZ, Double::sum);
                } catch (IOException | RuntimeException gone) {
                    // the thread ended between listing and reading
                }
            }
        } catch (IOException e) {
            return r;
        }
        return r;
    }

    /** The busiest thread groups between two {@link #threadSeconds} snapshots, in cores, e.g. "hloop# 0.061, ...". */
    static String busiest(Map<String, Double> before, Map<String, Double> after, double secs, int top) {
        StringBuilder sb = new StringBuilder();
        after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), (e.getValue() - before.getOrDefault(e.getKey(), 0.0)) / secs))
                .filter(e -> e.getValue() >= 0.005)
                .sorted((x, y) -> Double.compare(y.getValue(), x.getValue()))
                .limit(top)
                .forEach(e -> sb.append(sb.isEmpty() ? "" : ", ").append(String.format("%s %.3f", e.getKey(), e.getValue())));
        return sb.isEmpty() ? "-" : sb.toString();
    }

    /** The fields after "pid (comm) ": index 0 is field 3 (state), utime (field 14) index 11, stime index 12. */
    private static String[] fields(String stat) {
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    }
}
