package dev.parley.testsupport.process;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * What a pod writes to stdout (what a cluster's log collector reads), for tests of the log format: runs a pod's main
 * class in a child JVM on this JVM's class path without any {@code test-classes} entry, so the module's own
 * {@code logback.xml} applies and no {@code logback-test.xml} does.
 */
public final class PodStdout {
    private PodStdout() {
    }

    /**
     * Starts {@code mainClass} with {@code env} added, waits until a stdout line matches {@code until}, the process
     * exits, or {@code timeout} passes, then stops it (SIGTERM, so shutdown lines are included) and returns every
     * stdout line.
     */
    public static List<String> run(String mainClass, Map<String, String> env, Predicate<String> until, Duration timeout,
                                   Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path out = dir.resolve(mainClass + ".stdout");
        Path err = dir.resolve(mainClass + ".stderr");
        List<String> cp = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!e.contains("test-classes")) {
                cp.add(e);
            }
        }
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-cp", String.join(File.pathSeparator, cp), mainClass)
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (p.isAlive() && System.nanoTime() < deadline) {
                if (Files.readAllLines(out).stream().anyMatch(until)) {
                    break;
                }
                Thread.sleep(200);
            }
        } finally {
            ChildProcesses.stop(p, Duration.ofSeconds(10));
        }
        return Files.readAllLines(out);
    }
}
