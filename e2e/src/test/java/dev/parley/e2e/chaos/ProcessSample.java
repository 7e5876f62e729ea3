package dev.parley.e2e.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One process's footprint read from {@code /proc/<pid>} (resident set, open file descriptors, threads) and, for a
 * JVM, its heap in use right after a full collection ({@code jcmd GC.run} then {@code GC.heap_info}): the
 * series a soak watches for leaks. A value that cannot be read is -1.
 */
record ProcessSample(long rssBytes, long fds, long threads, long heapAfterGcBytes) {
    private static final Pattern VM_RSS = Pattern.compile("(?m)^VmRSS:\\s+(\\d+) kB");
    private static final Pattern USED = Pattern.compile("used (\\d+)K");
    private static final Path JCMD = Path.of(System.getProperty("java.home"), "bin", "jcmd");

    static ProcessSample of(long pid, boolean jvm) {
        Path proc = Path.of("/proc", Long.toString(pid));
        return new ProcessSample(rss(proc), count(proc.resolve("fd")), count(proc.resolve("task")),
            jvm ? heapAfterGc(pid) : -1);
    }

    private static long rss(Path proc) {
        try {
            Matcher m = VM_RSS.matcher(Files.readString(proc.resolve("status")));
            return m.find() ? Long.parseLong(m.group(1)) * 1024 : -1;
        } catch (IOException e) {
            return -1;
        }
    }

    private static long count(Path dir) {
        try (var s = Files.list(dir)) {
            return s.count();
        } catch (IOException e) {
            return -1;
        }
    }

    private static long heapAfterGc(long pid) {
        try {
            if (jcmd(pid, "GC.run") == null) return -1;
            String info = jcmd(pid, "GC.heap_info");
            return info == null ? -1 : heapUsed(info);
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** The heap's used KiB summed over its generations in {@code GC.heap_info} output (Metaspace left out), in bytes. */
    static long heapUsed(String heapInfo) {
        long kib = 0;
        boolean any = false;
        for (String line : heapInfo.split("\n")) {
            if (line.contains("Metaspace") || line.contains("class space")) continue;
            Matcher m = USED.matcher(line);
            if (m.find()) {
                kib += Long.parseLong(m.group(1));
                any = true;
            }
        }
        return any ? kib * 1024 : -1;
    }

    private static String jcmd(long pid, String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(JCMD.toString(), Long.toString(pid), command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            return null;
        }
        return new String(out);
    }
}
