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
     * Starts the pod and waits until it is ready; a pod that exits while starting is started again (at most three
     * times), as on a loaded machine etcd sometimes answers the first lease grant too late.
     */
    synchronized void start(Duration timeout) throws Exception {
        for (int attempt = 1; ; attempt++) {
            incarnation++;
            PodProcess p = PodProcess.start(name + (incarnation > 1 ? "-i" + incarnation : ""), jar, env, logDir);
            process = p;
            try {
                p.awaitReady(readyUrl, timeout);
                return;
            } catch (IllegalStateException e) {
                boolean exited = !p.alive();
                p.close();
                if (!exited || attempt == 3) throw e;
            }
        }
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
