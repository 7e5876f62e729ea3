package dev.parley.controller.testing;

import io.etcd.jetcd.Client;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real single-node etcd (/usr/bin/etcd) on loopback with random ports and a temp data dir.
 * Stop-gap until test-support's {@code dev.parley.testsupport.etcd} fixture lands on main.
 */
public final class EtcdTestServer implements AutoCloseable {
    private final Process process;
    private final Path dataDir;
    private final int clientPort;

    private EtcdTestServer(Process process, Path dataDir, int clientPort) {
        this.process = process;
        this.dataDir = dataDir;
        this.clientPort = clientPort;
    }

    public static EtcdTestServer start() throws IOException, InterruptedException {
        int client = freePort();
        int peer = freePort();
        Path dir = Files.createTempDirectory("parley-etcd-");
        ProcessBuilder pb = new ProcessBuilder(List.of("/usr/bin/etcd", "--name", "t", "--data-dir", dir.toString(),
                "--listen-client-urls", "http://127.0.0.1:" + client,
                "--advertise-client-urls", "http://127.0.0.1:" + client,
                "--listen-peer-urls", "http://127.0.0.1:" + peer,
                "--initial-advertise-peer-urls", "http://127.0.0.1:" + peer,
                "--initial-cluster", "t=http://127.0.0.1:" + peer,
                "--log-level", "error"));
        pb.redirectErrorStream(true);
        pb.redirectOutput(dir.resolve("etcd.log").toFile());
        Process p = pb.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IOException("etcd exited: " + Files.readString(dir.resolve("etcd.log")));
            }
            try (Socket s = new Socket("127.0.0.1", client)) {
                Thread.sleep(200);
                return new EtcdTestServer(p, dir, client);
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        p.destroyForcibly();
        throw new IOException("etcd did not start");
    }

    public String endpoint() {
        return "http://127.0.0.1:" + clientPort;
    }

    public Client newClient() {
        return Client.builder().endpoints(endpoint()).build();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() throws IOException {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (var walk = Files.walk(dataDir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }
}
