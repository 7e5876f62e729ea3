package dev.parley.bench.media;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * SFU media workers side by side ({@code -Dbench.workers=1,2}): the same scenario against a fresh SFU per run,
 * the worker counts alternating round by round so machine noise hits both alike; prints per worker count the median
 * and min–max of forwarded packets/s, SFU CPU and load-client CPU, and the ratio of the medians to the first count.
 */
final class WorkerComparison {
    private WorkerComparison() {}

    static void run(String mode, int n, int seconds, Path jar, String workerList, int rounds) throws Exception {
        int[] counts = Arrays.stream(workerList.split(",")).map(String::trim).mapToInt(Integer::parseInt).toArray();
        Map<Integer, List<SfuLoadBench.Result>> results = new LinkedHashMap<>();
        for (int c : counts) results.put(c, new ArrayList<>());
        for (int r = 0; r < rounds; r++) {
            for (int c : counts) {
                System.out.printf("round %d/%d, %d worker(s)%n", r + 1, rounds, c);
                results.get(c).add(SfuLoadBench.run(mode, n, seconds, jar, c));
            }
        }
        List<String> lines = new ArrayList<>();
        double base = median(results.get(counts[0]), SfuLoadBench.Result::forwardedPps);
        for (int c : counts) {
            List<SfuLoadBench.Result> rs = results.get(c);
            double pps = median(rs, SfuLoadBench.Result::forwardedPps);
            lines.add(String.format("%s %d: %d worker(s): forwarded %s pkt/s, SFU CPU %s cores, load client CPU %s cores, loss %s %%, "
                            + "forwarded ratio to %d worker(s) %.2f (medians of %d rounds, min-max in brackets)",
                    mode, n, c, stat(rs, SfuLoadBench.Result::forwardedPps, "%.0f"), stat(rs, SfuLoadBench.Result::sfuCores, "%.2f"),
                    stat(rs, SfuLoadBench.Result::clientCores, "%.2f"), stat(rs, SfuLoadBench.Result::lossPct, "%.3f"),
                    counts[0], base > 0 ? pps / base : 0, rs.size()));
        }
        if (counts.length > 1) {
            List<String> perRound = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                double b = results.get(counts[0]).get(r).forwardedPps();
                perRound.add(String.format("%.2f", b > 0 ? results.get(counts[counts.length - 1]).get(r).forwardedPps() / b : 0));
            }
            double last = median(results.get(counts[counts.length - 1]), SfuLoadBench.Result::forwardedPps);
            lines.add(String.format("sfu workers: %d/%d forwarded packets/s %.2f (median of %d rounds; per round %s)",
                    counts[counts.length - 1], counts[0], base > 0 ? last / base : 0, rounds, String.join(", ", perRound)));
        }
        for (String l : lines) System.out.println(l);
        append(lines);
    }

    private static String stat(List<SfuLoadBench.Result> rs, ToDoubleFunction<SfuLoadBench.Result> f, String fmt) {
        double[] v = rs.stream().mapToDouble(f).sorted().toArray();
        return String.format(fmt + " [" + fmt + "-" + fmt + "]", median(v), v[0], v[v.length - 1]);
    }

    private static double median(List<SfuLoadBench.Result> rs, ToDoubleFunction<SfuLoadBench.Result> f) {
        return median(rs.stream().mapToDouble(f).sorted().toArray());
    }

    private static double median(double[] sorted) {
        int k = sorted.length;
        return k == 0 ? 0 : k % 2 == 1 ? sorted[k / 2] : (sorted[k / 2 - 1] + sorted[k / 2]) / 2;
    }

    private static void append(List<String> lines) throws IOException {
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "sfu-bench-results.txt"), String.join("\n", lines) + "\n",
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
