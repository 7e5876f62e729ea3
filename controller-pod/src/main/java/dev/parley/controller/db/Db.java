package dev.parley.controller.db;

import dev.parley.controller.api.ApiException;
import jakarta.inject.Singleton;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Plain JDBC transactions on the Hikari pool. Every public operation is one short transaction
 * (READ COMMITTED plus explicit row locks); nothing network-bound happens inside one. Round trips are
 * the main cost of a request, so no per-transaction session settings are sent.
 */
@Singleton
public class Db {
    private final DataSource ds;

    public Db(DataSource ds) {
        this.ds = ds;
    }

    /** Work inside a transaction. */
    @FunctionalInterface
    public interface TxWork<T> {
        T run(Connection c) throws SQLException;
    }

    public <T> T tx(TxWork<T> work) {
        return tx(false, work);
    }

    /**
     * A read-only REPEATABLE READ transaction: every statement sees the same snapshot. The isolation is set
     * per transaction ({@code SET TRANSACTION}), not per session, so pooled connections need no reset.
     */
    public <T> T readSnapshot(TxWork<T> work) {
        return tx(true, work);
    }

    /**
     * One statement outside an explicit transaction (autocommit): a single SELECT is consistent on its own
     * and needs no BEGIN/COMMIT round trips.
     */
    public <T> T read(TxWork<T> work) {
        try (Connection c = ds.getConnection()) {
            return work.run(c);
        } catch (SQLException e) {
            throw translate(e);
        }
    }

    // No session settings (isolation, read-only) are changed, so a transaction costs no extra round trips:
    // BEGIN rides on the first statement and autocommit toggling is client-side only in pgjdbc. Pooled
    // connections stay in autocommit mode between uses, so no borrower can inherit an open transaction.
    private <T> T tx(boolean snapshot, TxWork<T> work) {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                if (snapshot) {
                    try (Statement s = c.createStatement()) {
                        s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
                    }
                }
                T r = work.run(c);
                c.commit();
                return r;
            } catch (Throwable t) {
                c.rollback();
                throw t;
            }
        } catch (SQLException e) {
            throw translate(e);
        }
    }

    /** Maps constraint violations to client-visible conflicts; everything else is a server problem. */
    static RuntimeException translate(SQLException e) {
        String state = e.getSQLState();
        if ("40001".equals(state) || "40P01".equals(state)) {
            return ApiException.conflict("concurrent_update", "concurrent update, retry with the same Idempotency-Key");
        }
        return new DbException(e);
    }

    /** An unexpected database failure (rendered as 500/503 without details). */
    public static final class DbException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public DbException(SQLException cause) {
            super("database error: " + cause.getSQLState(), cause);
        }

        public String sqlState() {
            return ((SQLException) getCause()).getSQLState();
        }
    }
}
