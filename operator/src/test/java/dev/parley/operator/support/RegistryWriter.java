package dev.parley.operator.support;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Writes registry entries the way SFU/TURN pods do (JSON under a lease), so operator tests read load from a
 * real etcd. Only the values are chosen by the test.
 */
public final class RegistryWriter implements AutoCloseable {
    private final Client client;
    private final long lease;

    public RegistryWriter(Client client) throws Exception {
        this.client = client;
        this.lease = client.getLeaseClient().grant(900).get(5, TimeUnit.SECONDS).getID();
    }

    public void sfu(String region, String pod, String state, double stress, long transports) throws Exception {
        put("/parley/v1/regions/" + region + "/sfu/" + pod, String.format(Locale.ROOT,
                "{\"pod\":\"%s\",\"region\":\"%s\",\"state\":\"%s\",\"internal_url\":null,"
                        + "\"load\":{\"egress_bps\":%d,\"ingress_bps\":0,\"packets_per_second\":%d,\"transports\":%d,"
                        + "\"subscriptions\":%d,\"meetings\":1,\"stress\":%.3f},\"updated_at_ms\":%d}",
                pod, region, state, (long) (stress * 1_000_000), (long) (stress * 1000), transports, transports * 2, stress,
                System.currentTimeMillis()));
    }

    public void turn(String region, String pod, String state, long allocations, long relayedBps) throws Exception {
        put("/parley/v1/regions/" + region + "/turn/" + pod, String.format(Locale.ROOT,
                "{\"pod\":\"%s\",\"region\":\"%s\",\"state\":\"%s\",\"allocations\":%d,\"relayed_bps\":%d,\"updated_at_ms\":%d}",
                pod, region, state, allocations, relayedBps, System.currentTimeMillis()));
    }

    public void runner(String jobId, String pod, int generation, String phase, long segments) throws Exception {
        put("/parley/v1/recordings/" + jobId + "/runner", String.format(Locale.ROOT,
                "{\"pod\":\"%s\",\"generation\":%d,\"phase\":\"%s\",\"segments\":%d,"
                        + "\"missing_ranges\":[{\"from_ms\":10000,\"to_ms\":12000,\"track\":\"audio\"}]}",
                pod, generation, phase, segments));
    }

    /** The controller's request key of a job (no lease, as the controller writes it). */
    public void request(String jobId, String json) throws Exception {
        client.getKVClient().put(ByteSequence.from("/parley/v1/recordings/" + jobId + "/request", StandardCharsets.UTF_8),
                ByteSequence.from(json, StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
    }

    public Optional<String> get(String key) throws Exception {
        var r = client.getKVClient().get(ByteSequence.from(key, StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
        return r.getKvs().isEmpty() ? Optional.empty() : Optional.of(r.getKvs().get(0).getValue().toString(StandardCharsets.UTF_8));
    }

    public long leaseOf(String key) throws Exception {
        var r = client.getKVClient().get(ByteSequence.from(key, StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
        return r.getKvs().isEmpty() ? -1 : r.getKvs().get(0).getLease();
    }

    public long lease() {
        return lease;
    }

    public void delete(String key) throws Exception {
        client.getKVClient().delete(ByteSequence.from(key, StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
    }

    private void put(String key, String json) throws Exception {
        client.getKVClient().put(ByteSequence.from(key, StandardCharsets.UTF_8), ByteSequence.from(json, StandardCharsets.UTF_8),
                PutOption.builder().withLeaseId(lease).build()).get(5, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        client.close();
    }
}
