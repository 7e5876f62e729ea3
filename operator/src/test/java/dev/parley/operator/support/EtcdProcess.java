package dev.parley.operator.support;

import dev.parley.testsupport.etcd.EtcdCluster;
import io.etcd.jetcd.Client;
import java.time.Duration;

/** A real single-member etcd on loopback (test-support's fixture), with the two things operator tests need. */
public final class EtcdProcess implements AutoCloseable {
    private final EtcdCluster cluster;

    private EtcdProcess(EtcdCluster cluster) {
        this.cluster = cluster;
    }

    public static EtcdProcess start() {
        EtcdCluster c = EtcdCluster.start(1);
        c.awaitHealthy(Duration.ofSeconds(30));
        return new EtcdProcess(c);
    }

    public String endpoint() {
        return cluster.endpointsCsv();
    }

    public Client client() {
        return Client.builder().endpoints(cluster.endpoints().toArray(String[]::new)).build();
    }

    @Override
    public void close() {
        cluster.close();
    }
}
