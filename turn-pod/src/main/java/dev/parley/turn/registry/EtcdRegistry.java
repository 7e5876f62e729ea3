package dev.parley.turn.registry;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.etcd.EtcdKeys;
import dev.parley.platform.etcd.ProcessLease;
import dev.parley.platform.etcd.Registrar;
import dev.parley.turn.peer.SfuEndpoint;
import io.etcd.jetcd.Client;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * This pod's entry at {@code /parley/v1/regions/{region}/turn/{pod}} under the process lease, using the shared
 * platform-core helpers: {@link ProcessLease} (own keep-alive and deadline, re-granted when lost) and
 * {@link Registrar} (periodic re-put with the current load, re-put when the lease is replaced, deleted on close).
 * Closing revokes the lease, so the entry disappears at once instead of after the TTL. It also follows the region's
 * SFU entries for the peer policy ({@link SfuPeerWatcher}).
 */
public final class EtcdRegistry implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EtcdRegistry.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Client client;
    private final ProcessLease lease;
    private final Registrar registrar;
    private final SfuPeerWatcher sfus;

    /**
     * @param sfuPeers receives the region's SFU media endpoints after every registry change (the peer policy)
     */
    public EtcdRegistry(List<String> endpoints, String region, String pod, long ttlSeconds, Supplier<?> value,
                        Duration refresh, Consumer<Collection<SfuEndpoint>> sfuPeers) {
        this.client = Client.builder().endpoints(endpoints.toArray(new String[0])).build();
        try {
            this.sfus = new SfuPeerWatcher(client, region, sfuPeers);
            this.lease = new ProcessLease(client, ttlSeconds).start();
            this.registrar = new Registrar(client, lease, key(region, pod), value, JSON, refresh).start();
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
        LOG.info("registered {} under lease {}", key(region, pod), Long.toHexString(lease.leaseId()));
    }

    public static String key(String region, String pod) {
        return EtcdKeys.turn(region, pod);
    }

    /** Re-puts the entry now, off the caller's thread (used when the state changes, e.g. on drain). */
    public void publishNow() {
        CompletableFuture.runAsync(() -> {
            try {
                registrar.putNow();
            } catch (RuntimeException e) {
                LOG.warn("registry update failed: {}", e.getMessage());
            }
        });
    }

    /** True while etcd confirms our lease (see {@link ProcessLease#isConfirmed()}). */
    public boolean confirmed() {
        return lease.isConfirmed();
    }

    /** True once the SFU entries were listed: before that the relay reaches no SFU. */
    public boolean sfusListed() {
        return sfus.listed();
    }

    public long leaseId() {
        return lease.leaseId();
    }

    @Override
    public void close() {
        sfus.close();
        registrar.close();
        lease.close();
        client.close();
    }
}
