package dev.parley.bench.media;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Two builds of the SFU side by side ({@code -Dbench.baseline.jar=OLD.jar}, {@code -Dsfu.jar=NEW.jar}): the same
 * scenario against a fresh SFU process per run, ABBA order (old first in odd rounds, new first in even ones) so a
 * drift in the machine's load favours neither. Prints forwarded packets per SFU core for each run, and as the last
 * line {@code sfu new/old packets per core <X> (median of <K> rounds; per round ...)}, with and without the JIT
 * compiler threads (late C2 work on connection set-up is not per-packet cost).
 *
 * <p>{@code -Dbench.new.workers=N} and {@code -Dbench.old.workers=N} give each build N media workers (0, the
 * default: the build's own default; a build from before media workers ignores it). {@code -Dbench.rounds} (4) sets
 * the rounds.
 */
final class JarComparison {
    private JarComparison() {}

    static void run(String mode, int n, int seconds, Path oldJar, Path newJar, int newWorkers, int oldWorkers, int rounds) throws Exception {
        List<Double> perCore = new ArrayList<>(), perCoreNoJit = new ArrayList<>();
        List<String> rows = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            boolean oldFirst = r % 2 == 0;
            SfuLoadBench.Result o = null, nw = null;
            for (int i = 0; i < 2; i++) {
                boolean runOld = (i == 0) == oldFirst;
                System.out.printf("round %d/%d, %s build%n", r + 1, rounds, runOld ? "old" : "new");
                if (runOld) o = SfuLoadBench.run(mode, n, seconds, oldJar, oldWorkers);
                else nw = SfuLoadBench.run(mode, n, seconds, newJar, newWorkers);
            }
            double ratio = ratio(nw.forwardedPps() / nw.sfuCores(), o.forwardedPps() / o.sfuCores());
            double ratioNoJit = ratio(nw.perCoreWithoutJit(), o.perCoreWithoutJit());
            perCore.add(ratio);
            perCoreNoJit.add(ratioNoJit);
            rows.add(String.format("%s %d round %d: new %.0f pkt/s per core (%.0f without JIT), old %.0f (%.0f); "
                            + "forwarded new %.0f old %.0f pkt/s; loss new %.3f%% old %.3f%%; new/old %.2f (%.2f without JIT)",
                    mode, n, r + 1, nw.forwardedPps() / nw.sfuCores(), nw.perCoreWithoutJit(), o.forwardedPps() / o.sfuCores(),
                    o.perCoreWithoutJit(), nw.forwardedPps(), o.forwardedPps(), nw.lossPct(), o.lossPct(), ratio, ratioNoJit));
        }
        rows.add(String.format("sfu new/old packets per core %.2f (median of %d rounds; per round %s); without JIT threads %.2f "
                        + "(per round %s); new %s, old %s, new workers %s, old workers %s",
                median(perCore), rounds, join(perCore), median(perCoreNoJit), join(perCoreNoJit), newJar, oldJar,
                newWorkers == 0 ? "default" : newWorkers, oldWorkers == 0 ? "default" : oldWorkers));
        for (String l : rows) System.out.println(l);
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "sfu-bench-results.txt"), String.join("\n", rows) + "\n",
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private static double ratio(double a, double b) { return b > 0 ? a / b : 0; }

    private static String join(List<Double> v) {
        List<String> s = new ArrayList<>();
        for (double d : v) s.add(String.format("%.2f", d));
        return String.join(", ", s);
    }

    private static double median(List<Double> v) {
        double[] s = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int k = s.length;
        return k == 0 ? 0 : k % 2 == 1 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
    }
}
