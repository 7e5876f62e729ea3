package dev.parley.sfu.registry;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.etcd.EtcdKeys;
import dev.parley.platform.etcd.ProcessLease;
import dev.parley.platform.etcd.Registrar;
import dev.parley.platform.etcd.SfuEntry;
import io.etcd.jetcd.Client;

import java.time.Duration;
import java.util.function.Supplier;

/** Registers this SFU at /parley/v1/regions/{region}/sfu/{pod} under its process lease, refreshed every 2 s. */
public final class SfuRegistration implements AutoCloseable {
    private final Client client;
    private final ProcessLease lease;
    private final Registrar registrar;

    public SfuRegistration(String endpoints, long ttlSeconds, String region, String pod, Supplier<SfuEntry> entry) {
        client = Client.builder().endpoints(endpoints.split(",")).build();
        lease = new ProcessLease(client, ttlSeconds).start();
        registrar = new Registrar(client, lease, EtcdKeys.sfu(region, pod), entry, new ObjectMapper(), Duration.ofSeconds(2)).start();
    }

    public boolean confirmed() { return lease.isConfirmed(); }

    @Override
    public void close() {
        registrar.close();
        lease.close();
        client.close();
    }
}
