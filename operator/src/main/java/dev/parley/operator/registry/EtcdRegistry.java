package dev.parley.operator.registry;

import dev.parley.operator.keys.RegistryKeys;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.operator.model.PodLoad;
import dev.parley.operator.model.PoolKind;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link LoadSource}, {@link RegistryEditor} and {@link RecorderProgressSource} over etcd (jetcd). */
public final class EtcdRegistry implements LoadSource, RegistryEditor, RecorderProgressSource, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EtcdRegistry.class);
    private static final long TIMEOUT_MS = 3000;

    private final Client client;
    /** Unreadable request keys already logged, with the mod revision logged (only the polling thread uses it). */
    private volatile Map<String, Long> warnedRequests = Map.of();

    public EtcdRegistry(Client client) {
        this.client = client;
    }

    public static EtcdRegistry connect(String endpoints) {
        return new EtcdRegistry(Client.builder().endpoints(endpoints.split(",")).build());
    }

    public Client client() {
        return client;
    }

    @Override
    public Map<String, PodLoad> loads(PoolKind kind, String region) {
        String prefix = RegistryKeys.podPrefix(kind.segment(), region);
        GetResponse r = await(client.getKVClient().get(bytes(prefix), GetOption.builder().isPrefix(true).build()));
        Map<String, PodLoad> out = new LinkedHashMap<>();
        for (KeyValue kv : r.getKvs()) {
            String pod = kv.getKey().toString(StandardCharsets.UTF_8).substring(prefix.length());
            try {
                out.put(pod, RegistryJson.parsePod(kv.getValue().getBytes()));
            } catch (java.io.IOException e) {
                LOG.warn("ignoring unreadable registry entry {}{}: {}", prefix, pod, e.getMessage());
            }
        }
        return out;
    }

    @Override
    public boolean markDraining(PoolKind kind, String region, String pod) {
        ByteSequence key = bytes(RegistryKeys.pod(kind.segment(), region, pod));
        // Compare-and-swap on the mod revision so a concurrent refresh by the pod is not lost; keep its lease
        // so the entry still disappears by itself if the pod dies.
        for (int attempt = 0; attempt < 5; attempt++) {
            GetResponse r = await(client.getKVClient().get(key));
            if (r.getKvs().isEmpty()) {
                return false;
            }
            KeyValue kv = r.getKvs().get(0);
            ObjectNode node;
            try {
                node = (ObjectNode) RegistryJson.MAPPER.readTree(kv.getValue().getBytes());
            } catch (java.io.IOException | ClassCastException e) {
                LOG.warn("registry entry of {} is not a JSON object; not marking it", pod);
                return false;
            }
            if (PodLoad.DRAINING.equals(node.path("state").asText())) {
                return true;
            }
            node.put("state", PodLoad.DRAINING);
            PutOption put = kv.getLease() == 0 ? PutOption.DEFAULT : PutOption.builder().withLeaseId(kv.getLease()).build();
            TxnResponse t = await(client.getKVClient().txn()
                    .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(kv.getModRevision())))
                    .Then(Op.put(key, ByteSequence.from(node.toString(), StandardCharsets.UTF_8), put))
                    .commit());
            if (t.isSucceeded()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void remove(PoolKind kind, String region, String pod) {
        await(client.getKVClient().delete(bytes(RegistryKeys.pod(kind.segment(), region, pod))));
    }

    @Override
    public Optional<RecorderProgress> progress(String jobId) {
        GetResponse r = await(client.getKVClient().get(bytes(RegistryKeys.recordingRunner(jobId))));
        if (r.getKvs().isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(RegistryJson.parseRunner(r.getKvs().get(0).getValue().getBytes()));
        } catch (java.io.IOException e) {
            LOG.warn("unreadable runner key of recording {}: {}", jobId, e.getMessage());
            return Optional.empty();
        }
    }

    @Override
    public List<RecordingRequest> requests() {
        String prefix = RegistryKeys.recordingsPrefix();
        GetResponse r = await(client.getKVClient().get(bytes(prefix), GetOption.builder().isPrefix(true).build()));
        List<RecordingRequest> out = new ArrayList<>();
        Map<String, Long> unreadable = new HashMap<>();
        for (KeyValue kv : r.getKvs()) {
            String key = kv.getKey().toString(StandardCharsets.UTF_8);
            if (!key.endsWith("/request")) {
                continue;
            }
            try {
                out.add(RegistryJson.parseRequest(kv.getValue().getBytes()));
            } catch (java.io.IOException e) {
                unreadable.put(key, kv.getModRevision());
                // once per version of the key, not once per poll
                if (!Long.valueOf(kv.getModRevision()).equals(warnedRequests.get(key))) {
                    LOG.warn("ignoring unreadable recording request {}: {}", key, e.getMessage());
                }
            }
        }
        warnedRequests = unreadable;
        return out;
    }

    @Override
    public void removeRunner(String jobId) {
        await(client.getKVClient().delete(bytes(RegistryKeys.recordingRunner(jobId))));
    }

    static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    private static <T> T await(java.util.concurrent.CompletableFuture<T> f) {
        try {
            return f.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RegistryUnavailableException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new RegistryUnavailableException("etcd: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
