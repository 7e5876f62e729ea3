package dev.parley.controller.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Several statements in ONE network round trip: pgjdbc sends them together and the server runs them in
 * order, each with its own READ COMMITTED snapshot. So a read placed after a {@code FOR UPDATE} still sees
 * whatever the previous lock holder committed, exactly as if it were sent on its own after the lock; only
 * the waiting for each answer goes away. Parameters are numbered across all statements.
 */
public final class Pipeline implements AutoCloseable {
    private final PreparedStatement ps;
    private boolean first = true;

    private Pipeline(PreparedStatement ps) {
        this.ps = ps;
    }

    public static Pipeline prepare(Connection c, String... statements) throws SQLException {
        return new Pipeline(c.prepareStatement(String.join(";\n", statements)));
    }

    /** For binding the parameters of all statements, in order. */
    public PreparedStatement params() {
        return ps;
    }

    public void execute() throws SQLException {
        ps.execute();
    }

    /** The rows of the next statement (read them before asking for the following one). */
    public ResultSet next() throws SQLException {
        advance();
        ResultSet rs = ps.getResultSet();
        if (rs == null) {
            throw new SQLException("pipeline: the next statement returned no rows");
        }
        return rs;
    }

    /** The row count of the next statement (an INSERT, UPDATE or DELETE without RETURNING). */
    public int nextUpdateCount() throws SQLException {
        advance();
        int n = ps.getUpdateCount();
        if (n < 0) {
            throw new SQLException("pipeline: the next statement returned no row count");
        }
        return n;
    }

    private void advance() throws SQLException {
        if (!first) {
            ps.getMoreResults();
        }
        first = false;
    }

    @Override
    public void close() throws SQLException {
        ps.close();
    }
}
