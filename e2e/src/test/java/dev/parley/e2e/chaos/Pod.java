package dev.parley.e2e.chaos;

import dev.parley.e2e.process.PodProcess;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * One pod of the chaos platform: its jar and environment kept, so it can be SIGKILLed and started again as
 * Kubernetes would restart it. {@link #incarnation()} grows with every start (an SFU's epochs restart with it).
 */
final class Pod implements AutoCloseable {
    final String name;
    final String kind;
    final int internalPort;
    private final Path jar;
    private final Map<String, String> env;
    private final String readyUrl;
    private final Path logDir;
    private volatile PodProcess process;
    private volatile int incarnation;

    Pod(String name, String kind, Path jar, Map<String, String> env, int internalPort, String readyUrl, Path logDir) {
        this.name = name;
        this.kind = kind;
        this.jar = jar;
        this.env = Map.copyOf(env);
        this.internalPort = internalPort;
        this.readyUrl = readyUrl;
        this.logDir = logDir;
    }

    /**
     * Starts the pod and waits until it is ready; a pod that fails while starting is started again (at most three
     * times), as on a loaded machine etcd sometimes answers the first lease grant too late. Failing is exiting, or
     * an exception out of {@code main} while the JVM lives on (an SFU's non-daemon threads keep it up, never ready).
     */
    synchronized void start(Duration timeout) throws Exception {
        for (int attempt = 1; ; attempt++) {
            incarnation++;
            PodProcess p = PodProcess.start(name + (incarnation > 1 ? "-i" + incarnation : ""), jar, env, logDir);
            process = p;
            try {
                awaitReadyOrFailed(p, timeout);
                return;
            } catch (IllegalStateException e) {
                boolean failed = !p.alive() || mainFailed(p);
                p.close();
                if (!failed || attempt == 3) throw e;
            }
        }
    }

    /** Waits in short steps so that a pod whose main thread died is restarted at once, not after the whole timeout. */
    private void awaitReadyOrFailed(PodProcess p, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            try {
                p.awaitReady(readyUrl, Duration.ofNanos(Math.max(0, Math.min(left, Duration.ofSeconds(2).toNanos()))));
                return;
            } catch (IllegalStateException notYet) {
                if (!p.alive() || mainFailed(p)) throw new IllegalStateException(name + " failed while starting", notYet);
                if (System.nanoTime() >= deadline) {
                    throw new IllegalStateException(name + " not ready within " + timeout, notYet);
                }
            }
        }
    }

    private static boolean mainFailed(PodProcess p) {
        String t = p.tail();
        return t.contains("Exception in thread \"main\"") || t.contains("failed to start");
    }

    /** SIGKILL, no goodbye. */
    void kill() throws InterruptedException {
        PodProcess p = process;
        if (p != null) p.kill();
    }

    boolean alive() {
        PodProcess p = process;
        return p != null && p.alive();
    }

    /** The running process's pid, or -1 before the first start. */
    long pid() {
        PodProcess p = process;
        return p == null ? -1 : p.pid();
    }

    int incarnation() {
        return incarnation;
    }

    String env(String key) {
        return env.get(key);
    }

    String tail() {
        PodProcess p = process;
        return p == null ? "(not started)" : p.tail();
    }

    @Override
    public void close() {
        PodProcess p = process;
        if (p != null) p.close();
    }
}
