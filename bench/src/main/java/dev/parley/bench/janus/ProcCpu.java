package dev.parley.bench.janus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    if (!name.contains("CompilerThre")) continue;
                    String[] f = fields(stat);
                    s += (Long.parseLong(f[11]) + Long.parseLong(f[12])) / HZ;
                } catch (IOException | RuntimeException gone) {
                    // the thread ended between listing and reading
                }
            }
        } catch (IOException e) {
            return s;
        }
        return s;
    }

    /** The fields after "pid (comm) ": index 0 is field 3 (state), utime (field 14) index 11, stime index 12. */
    private static String[] fields(String stat) {
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    }
}
