package dev.parley.recorder.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The real fat jar ({@code target/recorder-pod.jar}) as a separate process, so it can be SIGKILLed. */
public final class RecorderProcess implements AutoCloseable {
    private final Process process;

    private RecorderProcess(Process process) {
        this.process = process;
    }

    public static RecorderProcess start(Map<String, String> env, Path log) throws IOException {
        String jar = System.getProperty("parley.recorder.jar", "target/recorder-pod.jar");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar", jar))
                .redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        return new RecorderProcess(pb.start());
    }

    /** SIGKILL: no shutdown hook, no flush, no finalize: what a node failure looks like. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** SIGTERM: the recorder stops and finalizes. */
    public int terminate(long seconds) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return -1;
        }
        return process.exitValue();
    }

    public int waitFor(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            return -1;
        }
        return process.exitValue();
    }

    public boolean alive() {
        return process.isAlive();
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
