package dev.parley.bench.janus;

import dev.parley.testsupport.net.FreePorts;
import dev.parley.testsupport.process.ChildProcesses;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Runs Debian's {@code janus} binary as a child process (its own pid, so its CPU time is read like the SFU's) with the
 * bench's configuration folder ({@code bench/media/janus}): {@code -C <dir>/janus.jcfg -F <dir>}, log to a file,
 * ICE on the one interface address given ({@code -E}), a fixed RTP port range ({@code -r}).
 */
final class JanusProcess implements AutoCloseable {
    private final Process process;
    final Path log;
    final URI api;

    JanusProcess(String binary, Path configDir, Path workDir, String iceAddress, String rtpPorts, int httpPort)
            throws IOException, InterruptedException {
        if (!Files.isRegularFile(configDir.resolve("janus.jcfg"))) throw new IOException("no janus.jcfg in " + configDir);
        if (FreePorts.isListening(httpPort)) {
            throw new IOException("port " + httpPort + " is already in use (another Janus?); set -Djanus.http.port and the port in "
                    + configDir.resolve("janus.transport.http.jcfg"));
        }
        Files.createDirectories(workDir);
        log = workDir.resolve("janus.log");
        Files.deleteIfExists(log);
        Path conf = configDir.toAbsolutePath();
        List<String> cmd = new java.util.ArrayList<>(List.of(binary, "-C", conf.resolve("janus.jcfg").toString(), "-F", conf.toString(),
                "-L", log.toString(), "-E", iceAddress, "-r", rtpPorts));
        // -Djanus.args="-d 7 -l": more Janus options, e.g. verbose and libnice logging to debug a connection
        String extra = System.getProperty("janus.args", "");
        if (!extra.isBlank()) cmd.addAll(List.of(extra.trim().split("\\s+")));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectErrorStream(true).redirectOutput(workDir.resolve("janus.out").toFile());
        process = pb.start();
        // an interrupted bench (Ctrl-C) must not leave its Janus running
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
        api = URI.create("http://127.0.0.1:" + httpPort + "/janus");
        JanusHttp probe = new JanusHttp(api);
        long deadline = System.nanoTime() + 15_000_000_000L;
        try {
            while (!probe.ready()) {
                if (!process.isAlive()) throw new IOException("janus exited with " + process.exitValue() + ": see " + log);
                if (System.nanoTime() > deadline) throw new IOException("janus did not answer on " + api + " within 15 s: see " + log);
                Thread.sleep(100);
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            close();
            throw e;
        } finally {
            probe.close();
        }
    }

    long pid() { return process.pid(); }

    @Override
    public void close() {
        ChildProcesses.stop(process, Duration.ofSeconds(5));
    }
}
