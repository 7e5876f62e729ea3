package dev.parley.controller.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Real PostgreSQL (embedded binaries), one server per test JVM, a fresh database per caller.
 * Stop-gap until test-support's {@code dev.parley.testsupport.postgres} fixture lands on main.
 */
public final class TestPostgres {
    private static EmbeddedPostgres pg;
    private static final AtomicInteger DBS = new AtomicInteger();

    private TestPostgres() {
    }

    public static synchronized String freshDatabaseUrl() throws Exception {
        if (pg == null) {
            pg = EmbeddedPostgres.builder()
                    .setServerConfig("max_connections", "300")
                    .setServerConfig("fsync", "off")
                    .setServerConfig("synchronous_commit", "off")
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    pg.close();
                } catch (Exception ignored) {
                    // best effort
                }
            }));
        }
        String name = "parley_" + ProcessHandle.current().pid() + "_" + DBS.incrementAndGet();
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        return pg.getJdbcUrl("postgres", name);
    }
}
