package dev.parley.recorder.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;

/**
 * A real etcd process (/usr/bin/etcd) on loopback ports with a temporary data dir.
 * Replace with test-support's etcd fixture once that lands on main.
 */
public final class EtcdServer implements AutoCloseable {
    private final Process process;
    private final int clientPort;

    public EtcdServer(Path dataDir) throws Exception {
        clientPort = S3ProxyServer.freePort();
        int peerPort = S3ProxyServer.freePort();
        String client = "http://127.0.0.1:" + clientPort;
        String peer = "http://127.0.0.1:" + peerPort;
        process = new ProcessBuilder(List.of("/usr/bin/etcd",
                "--name", "recorder-test",
                "--data-dir", dataDir.toString(),
                "--listen-client-urls", client, "--advertise-client-urls", client,
                "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                "--initial-cluster", "recorder-test=" + peer,
                "--log-level", "error"))
                .redirectErrorStream(true)
                .redirectOutput(dataDir.resolveSibling(dataDir.getFileName() + ".log").toFile())
                .start();
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (!reachable()) {
            if (!process.isAlive()) {
                throw new IllegalStateException("etcd exited with " + process.exitValue());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("etcd did not start");
            }
            Thread.sleep(50);
        }
    }

    private boolean reachable() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", clientPort), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public String endpoint() {
        return "http://127.0.0.1:" + clientPort;
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
