package dev.parley.controller.testing;

import dev.parley.testsupport.fs.Directories;
import dev.parley.testsupport.postgres.EmbeddedPostgresLauncher;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;

/**
 * A real PostgreSQL of its own (not the JVM's shared server, which other test classes use) that a test may stop
 * and start again: same port, same data directory, so what was committed before the stop is there after it.
 * Register it before the {@link ControllerHarness} that uses {@link #freshDatabaseUrl()}.
 */
public final class StoppablePostgres implements AfterAllCallback {
    private static final java.util.concurrent.atomic.AtomicInteger DBS = new java.util.concurrent.atomic.AtomicInteger();
    private final Path dataDir;
    private final int port;
    private EmbeddedPostgres server;

    public StoppablePostgres() {
        try {
            dataDir = Files.createTempDirectory("parley-pg-stoppable-");
            port = portOutsideEphemeralRange();
            server = EmbeddedPostgresLauncher.builder(dataDir, port, false).start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> Directories.deleteTree(dataDir), "stoppable-postgres-rm"));
        } catch (Exception e) {
            throw new IllegalStateException("could not start a dedicated PostgreSQL", e);
        }
    }

    /**
     * While the server is stopped its port is free, and a port of the ephemeral range may meanwhile become the local
     * port of any outgoing connection on the machine (it happened: "could not bind … Address already in use" at the
     * restart). A listening port below that range is never handed out that way, and other fixtures take ports from
     * the OS (port 0), which come from the ephemeral range.
     */
    private static int portOutsideEphemeralRange() throws Exception {
        int low = 32768;
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        if (Files.isReadable(range)) {
            try (var in = Files.newInputStream(range)) { // not readString: /proc files report size 0
                low = Integer.parseInt(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII)
                        .trim().split("\\s+")[0]);
            }
        }
        if (low < 2000) {
            low = 32768;
        }
        int from = Math.min(15000, low - 1000);
        var rnd = java.util.concurrent.ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 200; attempt++) {
            int p = rnd.nextInt(from, low);
            try (var socket = new java.net.ServerSocket()) {
                socket.setReuseAddress(false);
                socket.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), p));
                return p;
            } catch (java.io.IOException taken) {
                // try another
            }
        }
        throw new IllegalStateException("no free port below the ephemeral range " + low);
    }

    /** A new database on this server (for {@link ControllerHarness#onDatabase}). */
    public String freshDatabaseUrl() throws Exception {
        start(); // a rerun of a failed class comes after afterAll stopped the server
        String name = "outage_" + ProcessHandle.current().pid() + "_" + DBS.incrementAndGet();
        try (Connection c = server.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + name;
    }

    /** Stops the server (fast shutdown: open sessions are terminated, new connections refused). */
    public synchronized void stop() throws Exception {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    /** Starts it again on the same port and data directory. */
    public synchronized void start() throws Exception {
        if (server == null) {
            server = EmbeddedPostgresLauncher.builder(dataDir, port, false).start();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        stop(); // the data directory goes at JVM exit (a rerun of the class starts the server again)
    }
}
