package dev.parley.controller.db;

import dev.parley.controller.http.ApiException;
import io.micronaut.data.connection.ConnectionDefinition;
import io.micronaut.data.connection.ConnectionOperations;
import io.micronaut.data.connection.exceptions.ConnectionException;
import io.micronaut.data.connection.jdbc.exceptions.CannotGetJdbcConnectionException;
import io.micronaut.data.exceptions.DataAccessException;
import io.micronaut.transaction.TransactionDefinition;
import io.micronaut.transaction.TransactionOperations;
import io.micronaut.transaction.exceptions.TransactionException;
import jakarta.inject.Singleton;

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
    private final ConnectionOperations<Connection> connections;
    private final TransactionOperations<Connection> transactions;

    public Db(ConnectionOperations<Connection> connections, TransactionOperations<Connection> transactions) {
        this.connections = connections;
        this.transactions = transactions;
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
        try {
            return connections.execute(ConnectionDefinition.DEFAULT, status -> {
                try {
                    return work.run(status.getConnection());
                } catch (SQLException e) {
                    throw new SqlFailure(e);
                }
            });
        } catch (SqlFailure e) {
            throw translate((SQLException) e.getCause());
        } catch (CannotGetJdbcConnectionException | ConnectionException e) {
            throw new DbException(e); // no connection at all: PostgreSQL is down or unreachable
        }
    }

    /**
     * ONE statement that writes, in autocommit: it is its own transaction (atomic; an error rolls all of it back)
     * and costs one round trip, no BEGIN/COMMIT. For calls of the database functions of migration V5
     * ({@code join_meeting}, {@code admit_participant}, {@code reserve_transport}); {@code work} must run exactly one
     * statement.
     */
    public <T> T oneStatement(TxWork<T> work) {
        return read(work);
    }

    // No session settings (isolation, read-only) are changed, so a transaction costs no extra round trips:
    // BEGIN rides on the first statement and autocommit toggling is client-side only in pgjdbc. Pooled
    // connections stay in autocommit mode between uses, so no borrower can inherit an open transaction.
    // Opened through Micronaut's transaction manager so that Micronaut Data repositories called inside the
    // work (CommandRepository) run on the same connection and commit with it.
    private <T> T tx(boolean snapshot, TxWork<T> work) {
        try {
            return transactions.execute(TransactionDefinition.DEFAULT, status -> {
                Connection c = status.getConnection();
                try {
                    if (snapshot) {
                        try (Statement s = c.createStatement()) {
                            s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
                        }
                    }
                    return work.run(c);
                } catch (SQLException e) {
                    throw new SqlFailure(e);
                }
            });
        } catch (SqlFailure e) {
            throw translate((SQLException) e.getCause());
        } catch (CannotGetJdbcConnectionException | ConnectionException e) {
            throw new DbException(e); // no connection at all: PostgreSQL is down or unreachable
        } catch (DataAccessException | TransactionException e) {
            // repository or commit failures: translate the database's error when there is one
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof SQLException sql) {
                    throw translate(sql);
                }
            }
            if (DbFailures.isConnectionFailure(e)) {
                throw new DbException(e);
            }
            throw e;
        }
    }

    /** Carries a checked SQLException out of the transaction callback (after the rollback). */
    private static final class SqlFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SqlFailure(SQLException cause) {
            super(cause);
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

    /**
     * A database failure the request cannot recover from: PostgreSQL unreachable ({@link #connectionFailure()}) or
     * a statement that failed; rendered by {@link DbExceptionHandler} without details.
     */
    public static final class DbException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String sqlState;

        public DbException(SQLException cause) {
            super("database error: " + cause.getSQLState(), cause);
            this.sqlState = cause.getSQLState();
        }

        /** No connection could be had (the pool's own failure, which may carry no SQLException). */
        DbException(RuntimeException cause) {
            super("database unreachable", cause);
            this.sqlState = null;
        }

        public String sqlState() {
            return sqlState;
        }

        /** PostgreSQL could not be reached or went away: retrying later can succeed. */
        public boolean connectionFailure() {
            return DbFailures.isConnectionFailure(getCause());
        }
    }
}
