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
            server = EmbeddedPostgresLauncher.builder(dataDir, 0, false).start();
            port = server.getPort();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> Directories.deleteTree(dataDir), "stoppable-postgres-rm"));
        } catch (Exception e) {
            throw new IllegalStateException("could not start a dedicated PostgreSQL", e);
        }
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
