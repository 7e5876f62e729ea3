package dev.parley.controller.testing;

import dev.parley.testsupport.etcd.EtcdCluster;
import io.etcd.jetcd.Client;

/** A real single-node etcd from test-support's fixture ({@link EtcdCluster}), loopback only. */
public final class EtcdTestServer implements AutoCloseable {
    private final EtcdCluster cluster;

    private EtcdTestServer(EtcdCluster cluster) {
        this.cluster = cluster;
    }

    public static EtcdTestServer start() {
        return new EtcdTestServer(EtcdCluster.start(1));
    }

    public String endpoint() {
        return cluster.endpoints().get(0);
    }

    public Client newClient() {
        return Client.builder().endpoints(endpoint()).build();
    }

    @Override
    public void close() {
        cluster.close();
    }
}
