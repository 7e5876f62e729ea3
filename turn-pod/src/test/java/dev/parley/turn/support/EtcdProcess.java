package dev.parley.turn.support;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A real single-member etcd on free loopback ports with its own data directory. */
public final class EtcdProcess implements AutoCloseable {
    public static final Path BINARY = Path.of("/usr/bin/etcd");
    private final Process process;
    private final Path dataDir;
    private final int clientPort;

    public EtcdProcess() throws IOException, InterruptedException {
        dataDir = Files.createTempDirectory("parley-etcd");
        clientPort = TurnFixture.freePort();
        int peerPort = TurnFixture.freePort();
        String client = "http://127.0.0.1:" + clientPort;
        String peer = "http://127.0.0.1:" + peerPort;
        process = new ProcessBuilder(BINARY.toString(), "--name", "turn-test", "--data-dir", dataDir.toString(),
                "--listen-client-urls", client, "--advertise-client-urls", client,
                "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                "--initial-cluster", "turn-test=" + peer)
                .redirectErrorStream(true).redirectOutput(dataDir.resolve("etcd.log").toFile()).start();
        long deadline = System.currentTimeMillis() + 15_000;
        while (System.currentTimeMillis() < deadline) {
            try {
                new Socket("127.0.0.1", clientPort).close();
                return;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        close();
        throw new IOException("etcd did not start; see " + dataDir.resolve("etcd.log"));
    }

    public String endpoint() {
        return "http://127.0.0.1:" + clientPort;
    }

    @Override
    public void close() throws IOException {
        process.destroy();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> s = Files.walk(dataDir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
