package dev.parley.controller.db;

import io.micronaut.data.connection.exceptions.ConnectionException;
import io.micronaut.data.connection.jdbc.exceptions.CannotGetJdbcConnectionException;

import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.SQLNonTransientConnectionException;

/**
 * Which database failures mean "PostgreSQL cannot be reached right now": the pool found no connection in time,
 * the server refused or dropped the connection, or it is shutting down or starting up. Those are retryable
 * (503 with Retry-After); anything else is a failure of the statement itself.
 */
public final class DbFailures {
    private DbFailures() {
    }

    public static boolean isConnectionFailure(Throwable failure) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 16; t = t.getCause(), depth++) {
            if (t instanceof CannotGetJdbcConnectionException || t instanceof ConnectionException
                    || t instanceof SQLTransientConnectionException || t instanceof SQLNonTransientConnectionException
                    || t instanceof ConnectException) {
                return true;
            }
            if (t instanceof SQLException sql && isConnectionState(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /**
     * SQLState class 08 (connection exception: refused, broken, lost) and 57P01/57P02/57P03 (admin shutdown,
     * crash shutdown, cannot connect now: the server is stopping or still starting).
     */
    static boolean isConnectionState(String state) {
        return state != null && (state.startsWith("08") || "57P01".equals(state) || "57P02".equals(state)
                || "57P03".equals(state));
    }

    /** One line for the log: the first SQLState and message in the chain, without a stack trace. */
    static String describe(Throwable failure) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 16; t = t.getCause(), depth++) {
            if (t instanceof SQLException sql) {
                return sql.getSQLState() + " " + sql.getMessage();
            }
        }
        return String.valueOf(failure);
    }
}
