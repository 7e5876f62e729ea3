package dev.parley.e2e.chaos;

import dev.parley.testsupport.fs.Directories;
import dev.parley.testsupport.postgres.EmbeddedPostgresLauncher;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The chaos run's own PostgreSQL (test-support's embedded binaries and settings), on a fixed port and a kept data
 * directory so it can be stopped and started again like a database failover ({@link #stop()}, {@link #start()}),
 * or hung with SIGSTOP on the postmaster and every backend ({@link #pause()}, {@link #resume()}).
 */
final class PostgresServer implements AutoCloseable {
    static final String DATABASE = "parley_chaos";
    private final Path dataDir;
    private final int port;
    private EmbeddedPostgres pg;

    PostgresServer(Path dataDir, int port) {
        this.dataDir = dataDir;
        this.port = port;
    }

    synchronized void start() throws IOException {
        if (pg != null) return;
        pg = EmbeddedPostgresLauncher.builder(dataDir, port, false).start();
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            var rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + DATABASE + "'");
            if (!rs.next()) s.execute("CREATE DATABASE " + DATABASE);
        } catch (SQLException e) {
            throw new IOException("could not create " + DATABASE, e);
        }
    }

    /** Fast shutdown (pg_ctl stop -m fast): every client connection is closed. */
    synchronized void stop() throws IOException {
        if (pg == null) return;
        pg.close();
        pg = null;
    }

    boolean running() {
        return pg != null;
    }

    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE;
    }

    String user() {
        return "postgres";
    }

    String password() {
        return "postgres";
    }

    /** A connection for the invariants; short timeouts so a hung server never hangs the checker. */
    Connection connect() throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user());
        p.setProperty("password", password());
        p.setProperty("connectTimeout", "2");
        p.setProperty("socketTimeout", "3");
        p.setProperty("loginTimeout", "3");
        p.setProperty("ApplicationName", "chaos-checker");
        return DriverManager.getConnection(jdbcUrl(), p);
    }

    /** SIGSTOP to the postmaster and all its backends: the server hangs with its sockets open. */
    void pause() throws IOException {
        signal("STOP");
    }

    void resume() throws IOException {
        signal("CONT");
    }

    private void signal(String sig) throws IOException {
        long pid = Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).get(0).trim());
        List<String> cmd = new ArrayList<>(List.of("kill", "-" + sig, Long.toString(pid)));
        ProcessHandle.of(pid).ifPresent(h -> h.descendants().forEach(d -> cmd.add(Long.toString(d.pid()))));
        try {
            int rc = new ProcessBuilder(cmd).redirectErrorStream(true).start().waitFor();
            if (rc != 0) throw new IOException(String.join(" ", cmd) + " exited " + rc);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    @Override
    public synchronized void close() {
        try {
            if (pg != null) {
                try {
                    resume();
                } catch (IOException | RuntimeException ignored) {
                    // not paused
                }
                pg.close();
            }
        } catch (IOException ignored) {
            // exiting
        }
        pg = null;
        Directories.deleteTree(dataDir);
    }
}
