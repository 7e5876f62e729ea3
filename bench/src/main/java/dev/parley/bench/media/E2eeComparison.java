package dev.parley.bench.media;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * An end-to-end encrypted meeting's media beside a transport-encrypted one's through the same SFU
 * ({@code -Dbench.e2ee=true}): the same scenario against a fresh SFU per run, alternating transport, e2ee, e2ee,
 * transport (ABBA) so machine noise hits both alike. E2ee runs send payloads shaped as the SDK's SFrame frames
 * ({@link Publisher#e2eeShape}): the SFU routes on the clear bytes and forwards the rest untouched. Prints per mode
 * the median forwarded packets per SFU core and the ratio e2ee/transport.
 */
final class E2eeComparison {
    private E2eeComparison() {}

    static void run(String mode, int n, int seconds, Path jar, int rounds) throws Exception {
        List<SfuLoadBench.Result> transport = new ArrayList<>(), e2ee = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            boolean[] order = r % 2 == 0 ? new boolean[] {false, true} : new boolean[] {true, false};
            for (boolean enc : order) {
                System.out.printf("round %d/%d, %s payloads%n", r + 1, rounds, enc ? "e2ee" : "transport");
                Publisher.e2eeShape = enc;
                (enc ? e2ee : transport).add(SfuLoadBench.run(mode, n, seconds, jar, 0));
            }
        }
        Publisher.e2eeShape = false;
        List<String> lines = new ArrayList<>();
        double t = medianPerCore(transport), e = medianPerCore(e2ee);
        double tAll = median(transport.stream().mapToDouble(E2eeComparison::perCore).sorted().toArray());
        double eAll = median(e2ee.stream().mapToDouble(E2eeComparison::perCore).sorted().toArray());
        List<String> perRound = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            perRound.add(String.format("%.2f", e2ee.get(r).perCoreWithoutJit() / Math.max(1e-9, transport.get(r).perCoreWithoutJit())));
        }
        lines.add(String.format("%s %d: transport %.0f, e2ee %.0f forwarded packets per SFU core without JIT threads (with them %.0f, %.0f; "
                        + "medians of %d rounds); loss %.3f / %.3f %%",
                mode, n, t, e, tAll, eAll, rounds, median(transport.stream().mapToDouble(SfuLoadBench.Result::lossPct).sorted().toArray()),
                median(e2ee.stream().mapToDouble(SfuLoadBench.Result::lossPct).sorted().toArray())));
        lines.add(String.format("sfu e2ee vs transport: forwarded packets per core %.2f (median of %d rounds; per round %s)",
                t > 0 ? e / t : 0, rounds, String.join(", ", perRound)));
        for (String l : lines) System.out.println(l);
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "sfu-bench-results.txt"), String.join("\n", lines) + "\n",
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private static double perCore(SfuLoadBench.Result r) {
        return r.sfuCores() > 0 ? r.forwardedPps() / r.sfuCores() : 0;
    }

    /** Without the JIT compiler's threads: on this shared 2-core machine C2 still compiles in some windows, not others. */
    private static double medianPerCore(List<SfuLoadBench.Result> rs) {
        return median(rs.stream().mapToDouble(SfuLoadBench.Result::perCoreWithoutJit).sorted().toArray());
    }

    private static double median(double[] sorted) {
        int k = sorted.length;
        return k == 0 ? 0 : k % 2 == 1 ? sorted[k / 2] : (sorted[k / 2 - 1] + sorted[k / 2]) / 2;
    }
}
