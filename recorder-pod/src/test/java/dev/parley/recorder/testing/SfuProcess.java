package dev.parley.recorder.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.parley.testsupport.net.FreePorts;
import dev.parley.testsupport.process.ChildProcesses;
import dev.parley.testsupport.process.StandaloneSfuEnv;

/**
 * The real SFU ({@code dev.parley.sfu.Main} from sfu-pod, a test dependency) as its own process on loopback,
 * without etcd: its internal API is driven by {@link SfuControlPlane}.
 */
public final class SfuProcess implements AutoCloseable {
    private final Process process;
    private final int internalPort;
    private final String pod;

    private SfuProcess(Process process, int internalPort, String pod) {
        this.process = process;
        this.internalPort = internalPort;
        this.pod = pod;
    }

    /**
     * Starts the SFU on a free internal port and waits until its {@code /healthz} answers; starts it again on another
     * port when it lost the race for the first one (see {@link ChildProcesses#lostPortRace}).
     */
    public static SfuProcess start(String pod, String secret, String ticketPublicJwk, Path log) throws Exception {
        for (int attempt = 1; ; attempt++) {
            int port = FreePorts.tcp();
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            ProcessBuilder pb = new ProcessBuilder(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
                    "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                    "dev.parley.sfu.Main")).redirectErrorStream(true).redirectOutput(log.toFile());
            StandaloneSfuEnv.apply(pb.environment(), pod, port, secret, ticketPublicJwk);
            SfuProcess sfu = new SfuProcess(pb.start(), port, pod);
            try {
                sfu.awaitHealthy(60);
                return sfu;
            } catch (IllegalStateException e) {
                sfu.close();
                if (attempt >= 3 || !ChildProcesses.lostPortRace(sfu.process, log)) {
                    throw e;
                }
            }
        }
    }

    public String pod() {
        return pod;
    }

    public String internalUrl() {
        return "http://127.0.0.1:" + internalPort;
    }

    public String metrics() throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(internalUrl() + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** One Prometheus sample (the first line starting with {@code series}), 0 if absent. */
    public double metric(String series) throws IOException, InterruptedException {
        for (String line : metrics().split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        return 0;
    }

    private void awaitHealthy(int seconds) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("SFU exited with " + process.exitValue());
            }
            try {
                if (http.send(HttpRequest.newBuilder(URI.create(internalUrl() + "/healthz")).timeout(Duration.ofSeconds(2)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet, or listening but not answering yet (the 2 s request timeout): try again
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("SFU not healthy within " + seconds + " s");
    }

    @Override
    public void close() {
        ChildProcesses.stop(process, Duration.ofSeconds(10));
    }
}
