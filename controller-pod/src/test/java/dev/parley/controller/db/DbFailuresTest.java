package dev.parley.controller.db;

import io.micronaut.data.connection.jdbc.exceptions.CannotGetJdbcConnectionException;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import static org.assertj.core.api.Assertions.assertThat;

/** Which failures count as "PostgreSQL unreachable" (503 + Retry-After) and which are the statement's own. */
class DbFailuresTest {
    @Test
    void connectionFailuresAreRecognisedAnywhereInTheChain() {
        for (String state : new String[]{"08000", "08001", "08003", "08006", "57P01", "57P02", "57P03"}) {
            assertThat(DbFailures.isConnectionFailure(new SQLException("x", state))).as(state).isTrue();
            assertThat(new Db.DbException(new SQLException("x", state)).connectionFailure()).as(state).isTrue();
        }
        assertThat(DbFailures.isConnectionFailure(new SQLTransientConnectionException("pool timeout"))).isTrue();
        assertThat(DbFailures.isConnectionFailure(new RuntimeException(new SQLException("io", null,
                new ConnectException("Connection refused"))))).isTrue();
        assertThat(DbFailures.isConnectionFailure(new CannotGetJdbcConnectionException("no connection",
                new SQLTransientConnectionException("timeout")))).isTrue();
    }

    @Test
    void statementFailuresAreNot() {
        for (String state : new String[]{"23505", "22021", "22P05", "40001", "42P01", "57014", "P0001"}) {
            assertThat(DbFailures.isConnectionFailure(new SQLException("x", state))).as(state).isFalse();
            assertThat(new Db.DbException(new SQLException("x", state)).connectionFailure()).as(state).isFalse();
        }
        assertThat(DbFailures.isConnectionFailure(new SQLException("no state"))).isFalse();
        assertThat(DbFailures.isConnectionFailure(new IllegalStateException("bug"))).isFalse();
    }
}
