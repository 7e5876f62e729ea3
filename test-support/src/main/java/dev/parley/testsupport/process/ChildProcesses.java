package dev.parley.testsupport.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Small helpers for the pods and servers that tests and benchmarks run as child processes. */
public final class ChildProcesses {

    private ChildProcesses() {
    }

    /** SIGTERM, then SIGKILL if the process is still running after {@code grace}; returns once it is gone. */
    public static void stop(Process process, Duration grace) {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Whether a child that exited during start-up lost the race for a port that {@code FreePorts} had found free
     * (another process bound it in between). Callers then start it again on a new port. Without this check a
     * health probe may talk to whatever took the port — a listener that accepts but never answers HTTP, which is how
     * a clean-clone test run once hung.
     */
    public static boolean lostPortRace(Process process, Path log) {
        if (process.isAlive()) {
            return false;
        }
        try {
            return Files.readString(log).contains("Address already in use");
        } catch (IOException e) {
            return false;
        }
    }
}
