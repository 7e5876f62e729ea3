package dev.parley.controller.testing;

import dev.parley.testsupport.postgres.PostgresExtension;

import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/** Real PostgreSQL from test-support's shared embedded server; a fresh database per caller. */
public final class TestPostgres {
    private static final AtomicInteger DBS = new AtomicInteger();

    private TestPostgres() {
    }

    public static String freshDatabaseUrl() throws Exception {
        var pg = PostgresExtension.server();
        String name = "ctl_" + ProcessHandle.current().pid() + "_" + DBS.incrementAndGet();
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        return PostgresExtension.jdbcUrl(name);
    }
}
