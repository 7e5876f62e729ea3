package dev.parley.testsupport.etcd;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A single real etcd member for one test class:
 * <pre>{@code
 * @RegisterExtension
 * static EtcdExtension etcd = new EtcdExtension();
 * ... Client.builder().endpoints(etcd.endpoints().toArray(String[]::new)).build();
 * }</pre>
 * Started before the class's first test, killed and deleted after its last. Fails with an
 * {@code apt-get install etcd-server} hint when etcd is not installed.
 */
public class EtcdExtension implements BeforeAllCallback, AfterAllCallback {

    private final int size;
    private volatile EtcdCluster cluster;

    public EtcdExtension() {
        this(1);
    }

    protected EtcdExtension(int size) {
        this.size = size;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster = EtcdCluster.start(size);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        EtcdCluster c = cluster;
        cluster = null;
        if (c != null) {
            c.close();
        }
    }

    /** Client URLs ({@code http://127.0.0.1:PORT}). */
    public List<String> endpoints() {
        return cluster().endpoints();
    }

    /** Comma-separated client URLs, the format of {@code PARLEY_ETCD_ENDPOINTS}. */
    public String endpointsCsv() {
        return cluster().endpointsCsv();
    }

    /** Graceful stop (SIGTERM) of the member (all members for a cluster extension use {@code member(i)}). */
    public void stop() {
        cluster().member(0).stop();
    }

    /** SIGKILL of the member. */
    public void kill() {
        cluster().member(0).kill();
    }

    /** Starts the member again on the same ports and data and waits until it is healthy. */
    public void restart() {
        EtcdProcess m = cluster().member(0);
        m.restart();
        m.awaitHealthy(Duration.ofSeconds(30));
    }

    public EtcdProcess process() {
        return cluster().member(0);
    }

    protected EtcdCluster cluster() {
        EtcdCluster c = cluster;
        if (c == null) {
            throw new IllegalStateException("etcd is not running: register the extension with "
                    + "@RegisterExtension on a static field and use it from a test");
        }
        return c;
    }
}
