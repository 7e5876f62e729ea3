package dev.parley.operator.support;

import io.etcd.jetcd.Client;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A real etcd (/usr/bin/etcd) on loopback with a temporary data dir, for tests. (test-support's etcd fixture
 * had not landed on main when this was written; switch to dev.parley.testsupport.etcd once it has.)
 */
public final class EtcdProcess implements AutoCloseable {
    private final Process process;
    private final Path dataDir;
    private final String endpoint;

    private EtcdProcess(Process process, Path dataDir, String endpoint) {
        this.process = process;
        this.dataDir = dataDir;
        this.endpoint = endpoint;
    }

    public static EtcdProcess start() throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("parley-operator-etcd");
        int client = freePort();
        int peer = freePort();
        String endpoint = "http://127.0.0.1:" + client;
        Process p = new ProcessBuilder("/usr/bin/etcd", "--name", "op-test", "--data-dir", dir.resolve("data").toString(),
                "--listen-client-urls", endpoint, "--advertise-client-urls", endpoint,
                "--listen-peer-urls", "http://127.0.0.1:" + peer, "--initial-advertise-peer-urls", "http://127.0.0.1:" + peer,
                "--initial-cluster", "op-test=http://127.0.0.1:" + peer)
                .redirectErrorStream(true).redirectOutput(dir.resolve("etcd.log").toFile()).start();
        EtcdProcess e = new EtcdProcess(p, dir, endpoint);
        Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
        try (Client c = e.client()) {
            while (true) {
                try {
                    c.getKVClient().get(io.etcd.jetcd.ByteSequence.from("/probe", StandardCharsets.UTF_8))
                            .get(1, java.util.concurrent.TimeUnit.SECONDS);
                    return e;
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex) {
                    if (Instant.now().isAfter(deadline) || !p.isAlive()) {
                        e.close();
                        throw new IOException("etcd did not start: " + Files.readString(dir.resolve("etcd.log")), ex);
                    }
                    Thread.sleep(100);
                }
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            return s.getLocalPort();
        }
    }

    public String endpoint() {
        return endpoint;
    }

    public Client client() {
        return Client.builder().endpoints(endpoint).build();
    }

    @Override
    public void close() throws IOException {
        process.destroy();
        try {
            process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.destroyForcibly();
        try (Stream<Path> s = Files.walk(dataDir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
