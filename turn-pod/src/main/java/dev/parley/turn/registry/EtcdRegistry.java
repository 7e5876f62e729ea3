package dev.parley.turn.registry;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Keeps this pod's entry at {@code /parley/v1/regions/{region}/turn/{pod}} under a process lease: granted at start,
 * kept alive by jetcd, and the value rewritten every {@code period} with the current load. If the lease is lost
 * (etcd unreachable longer than the TTL) a new one is granted and the entry rewritten. On stop the lease is revoked,
 * so the entry disappears at once instead of after the TTL.
 */
public final class EtcdRegistry implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EtcdRegistry.class);
    private final Client client;
    private final ByteSequence key;
    private final long ttlSeconds;
    private final Supplier<String> value;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "turn-registry");
        t.setDaemon(true);
        return t;
    });
    private volatile long leaseId;
    private volatile CloseableClient keepAlive;
    private volatile long lastConfirmedNanos;

    public EtcdRegistry(List<String> endpoints, String region, String pod, long ttlSeconds, Supplier<String> value) {
        this.client = Client.builder().endpoints(endpoints.toArray(new String[0])).build();
        this.key = ByteSequence.from(key(region, pod), StandardCharsets.UTF_8);
        this.ttlSeconds = ttlSeconds;
        this.value = value;
    }

    public static String key(String region, String pod) {
        return "/parley/v1/regions/" + region + "/turn/" + pod;
    }

    public EtcdRegistry start(long periodMillis) {
        timer.scheduleWithFixedDelay(this::publish, 0, periodMillis, TimeUnit.MILLISECONDS);
        return this;
    }

    /** Writes the current value now (also used when state changes, e.g. on drain). */
    public void publishNow() {
        try {
            timer.execute(this::publish);
        } catch (java.util.concurrent.RejectedExecutionException stopped) {
            // closed: the entry is gone with the lease
        }
    }

    private void publish() {
        try {
            if (leaseId == 0) {
                grant();
            }
            client.getKVClient().put(key, ByteSequence.from(value.get(), StandardCharsets.UTF_8),
                    PutOption.builder().withLeaseId(leaseId).build()).get(ttlSeconds, TimeUnit.SECONDS);
            lastConfirmedNanos = System.nanoTime();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("etcd registry update failed: {}", e.toString());
            if (String.valueOf(e.getMessage()).contains("lease not found")) {
                dropLease();
            }
        }
    }

    private void grant() throws Exception {
        long id = client.getLeaseClient().grant(ttlSeconds).get(ttlSeconds, TimeUnit.SECONDS).getID();
        leaseId = id;
        keepAlive = client.getLeaseClient().keepAlive(id, new StreamObserver<>() {
            @Override
            public void onNext(LeaseKeepAliveResponse r) {
                if (r.getTTL() > 0) {
                    lastConfirmedNanos = System.nanoTime();
                }
            }

            @Override
            public void onError(Throwable t) {
                LOG.warn("etcd lease keep-alive failed: {}", t.toString());
                dropLease();
            }

            @Override
            public void onCompleted() {
                dropLease();
            }
        });
        LOG.info("registered {} under lease {}", key, Long.toHexString(id));
    }

    private void dropLease() {
        CloseableClient k = keepAlive;
        keepAlive = null;
        leaseId = 0;
        if (k != null) {
            k.close();
        }
    }

    /** True if etcd confirmed our lease within the TTL. */
    public boolean confirmed() {
        return leaseId != 0 && System.nanoTime() - lastConfirmedNanos < TimeUnit.SECONDS.toNanos(ttlSeconds);
    }

    public long leaseId() {
        return leaseId;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        long id = leaseId;
        CloseableClient k = keepAlive;
        if (k != null) {
            k.close();
        }
        if (id != 0) {
            try {
                client.getLeaseClient().revoke(id).get(2, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.warn("lease revoke failed (entry expires with the TTL): {}", e.toString());
            }
        }
        client.close();
    }
}
