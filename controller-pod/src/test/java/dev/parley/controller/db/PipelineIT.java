package dev.parley.controller.db;

import dev.parley.controller.testing.TestPostgres;
import dev.parley.testsupport.postgres.PostgresExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Pipeline} on real PostgreSQL: statements sent together still run one after the other with their own
 * snapshots, so a read behind a {@code FOR UPDATE} sees what the previous lock holder committed (the property
 * the controller's lock-then-read requests rely on).
 */
class PipelineIT {
    private static String url;

    @BeforeAll
    static void db() throws Exception {
        url = TestPostgres.freshDatabaseUrl();
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE lockme (id int PRIMARY KEY, v int)");
            s.execute("CREATE TABLE other (id int PRIMARY KEY, v int)");
            s.execute("INSERT INTO lockme VALUES (1, 0)");
            s.execute("INSERT INTO other VALUES (1, 0)");
            s.execute("CREATE TABLE counts (id int PRIMARY KEY, v int)");
            s.execute("INSERT INTO counts VALUES (1, 0)");
        }
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(url, PostgresExtension.user(), PostgresExtension.password());
    }

    @Test
    void readAfterTheLockSeesWhatTheLockHolderCommitted() throws Exception {
        try (Connection holder = connect(); Connection waiter = connect()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.executeQuery("SELECT * FROM lockme WHERE id = 1 FOR UPDATE").close();
                s.executeUpdate("UPDATE other SET v = 42 WHERE id = 1");
            }
            CompletableFuture<int[]> seen = CompletableFuture.supplyAsync(() -> {
                try {
                    waiter.setAutoCommit(false);
                    try (Pipeline q = Pipeline.prepare(waiter, "SELECT v FROM lockme WHERE id = ? FOR UPDATE",
                            "SELECT v FROM other WHERE id = ?")) {
                        q.params().setInt(1, 1);
                        q.params().setInt(2, 1);
                        q.execute();
                        int[] out = new int[2];
                        try (ResultSet rs = q.next()) {
                            rs.next();
                            out[0] = rs.getInt(1);
                        }
                        try (ResultSet rs = q.next()) {
                            rs.next();
                            out[1] = rs.getInt(1);
                        }
                        waiter.commit();
                        return out;
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            // the waiter is blocked on the row lock until the holder commits
            Thread.sleep(300);
            assertThat(seen).isNotDone();
            holder.commit();
            assertThat(seen.get(30, TimeUnit.SECONDS)[1]).isEqualTo(42);
        }
    }

    @Test
    void rowCountsAndRowsInOrder() throws Exception {
        try (Connection c = connect(); Pipeline q = Pipeline.prepare(c, "SELECT v FROM counts WHERE id = ?",
                "UPDATE counts SET v = v + 1 WHERE id = ?", "UPDATE counts SET v = v + 1 WHERE id = ?",
                "SELECT v FROM counts WHERE id = ?")) {
            q.params().setInt(1, 1);
            q.params().setInt(2, 1);
            q.params().setInt(3, 999);
            q.params().setInt(4, 1);
            q.execute();
            int before;
            try (ResultSet rs = q.next()) {
                assertThat(rs.next()).isTrue();
                before = rs.getInt(1);
            }
            assertThat(q.nextUpdateCount()).isEqualTo(1);
            assertThat(q.nextUpdateCount()).isZero();
            try (ResultSet rs = q.next()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(before + 1);
            }
            assertThatThrownBy(q::next).isInstanceOf(SQLException.class);
        }
    }
}
