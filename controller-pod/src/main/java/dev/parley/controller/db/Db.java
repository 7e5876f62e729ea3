package dev.parley.controller.db;

import dev.parley.controller.api.ApiException;
import jakarta.inject.Singleton;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Plain JDBC transactions on the Hikari pool. Every public operation is one short transaction
 * (READ COMMITTED plus explicit row locks); nothing network-bound happens inside one.
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
        return tx(Connection.TRANSACTION_READ_COMMITTED, false, work);
    }

    public <T> T readSnapshot(TxWork<T> work) {
        return tx(Connection.TRANSACTION_REPEATABLE_READ, true, work);
    }

    private <T> T tx(int isolation, boolean readOnly, TxWork<T> work) {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(isolation);
            c.setReadOnly(readOnly);
            try {
                T r = work.run(c);
                c.commit();
                return r;
            } catch (Throwable t) {
                c.rollback();
                throw t;
            } finally {
                c.setReadOnly(false);
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
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
