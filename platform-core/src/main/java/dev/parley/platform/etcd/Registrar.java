package dev.parley.platform.etcd;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.PutOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Keeps one JSON registry entry in etcd under the process lease, refreshed every few seconds (so load
 * numbers stay current) and re-put at once when the lease is replaced.
 */
public final class Registrar implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Registrar.class);

    private final Client client;
    private final ProcessLease lease;
    private final String key;
    private final Supplier<?> entry;
    private final ObjectMapper json;
    private final Duration refresh;
    private final ScheduledExecutorService exec;
    private volatile boolean closed;

    public Registrar(Client client, ProcessLease lease, String key, Supplier<?> entry, ObjectMapper json,
                     Duration refresh) {
        this.client = client;
        this.lease = lease;
        this.key = key;
        this.entry = entry;
        this.json = json;
        this.refresh = refresh;
        this.exec = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "etcd-registrar");
            t.setDaemon(true);
            return t;
        });
    }

    /** Puts the entry now (blocking) and schedules refreshes. */
    public Registrar start() {
        putNow();
        exec.scheduleWithFixedDelay(this::putQuietly, refresh.toMillis(), refresh.toMillis(), TimeUnit.MILLISECONDS);
        lease.addListener((state, id) -> {
            if (state == LeaseState.CONFIRMED && !closed) {
                exec.execute(this::putQuietly);
            }
        });
        return this;
    }

    public String key() {
        return key;
    }

    /** Writes the current entry under the current lease; throws if etcd does not answer. */
    public void putNow() {
        try {
            byte[] value = json.writeValueAsBytes(entry.get());
            client.getKVClient().put(EtcdKeys.bytes(key), io.etcd.jetcd.ByteSequence.from(value),
                    PutOption.builder().withLeaseId(lease.leaseId()).build()).get(5, TimeUnit.SECONDS);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("registry entry not serialisable", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (Exception e) {
            throw new IllegalStateException("registry put failed for " + key, e);
        }
    }

    private void putQuietly() {
        if (closed || lease.state() == LeaseState.LOST || lease.state() == LeaseState.CLOSED) {
            return;
        }
        try {
            putNow();
        } catch (RuntimeException e) {
            LOG.warn("registry refresh of {} failed: {}", key, e.getMessage());
        }
    }

    /** Stops refreshing and deletes the entry. */
    @Override
    public void close() {
        closed = true;
        exec.shutdownNow();
        try {
            client.getKVClient().delete(EtcdKeys.bytes(key)).get(2, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.debug("registry delete failed: {}", e.toString());
        }
    }
}
