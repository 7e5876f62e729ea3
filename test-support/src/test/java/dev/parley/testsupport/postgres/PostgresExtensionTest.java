package dev.parley.testsupport.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresExtensionTest {

    @RegisterExtension
    static PostgresExtension pg = PostgresExtension.freshDatabasePerClass();

    @Test
    void serverIsRealPostgres17() throws SQLException {
        try (Connection c = PostgresExtension.dataSource().getConnection();
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT version(), current_setting('server_version_num')::int")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).startsWith("PostgreSQL 17.");
            assertThat(rs.getInt(2)).isBetween(170000, 179999);
        }
    }

    @Test
    void perClassDatabaseIsEmptyAndWritable() throws SQLException {
        PostgresExtension.Database db = pg.database();
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT current_database(), count(*) FROM pg_tables WHERE schemaname = 'public'")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo(db.name()).startsWith("postgresextensiontest_");
            }
            s.execute("CREATE TABLE IF NOT EXISTS meeting(id int primary key, title text)");
            s.execute("INSERT INTO meeting VALUES (1, 'standup') ON CONFLICT DO NOTHING");
            try (ResultSet rs = s.executeQuery("SELECT title FROM meeting WHERE id = 1")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("standup");
            }
        }
    }

    @Test
    void templateCopiesCarryMigrationsButNotEachOthersRows() throws SQLException {
        PostgresExtension.Database a = PostgresExtension.createDatabaseFromTemplate("a", "tmpl_test",
                ds -> run(ds, "CREATE TABLE room(id int primary key)"));
        PostgresExtension.Database b = PostgresExtension.createDatabaseFromTemplate("b", "tmpl_test",
                ds -> { throw new AssertionError("template must be migrated once"); });
        run(a.dataSource(), "INSERT INTO room VALUES (42)");
        try (Connection c = b.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM room")) {
            rs.next();
            assertThat(rs.getInt(1)).isZero();
        }
        PostgresExtension.dropDatabase(a.name());
        assertThatThrownBy(() -> a.dataSource().getConnection().close()).isInstanceOf(SQLException.class);
    }

    private static void run(javax.sql.DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
