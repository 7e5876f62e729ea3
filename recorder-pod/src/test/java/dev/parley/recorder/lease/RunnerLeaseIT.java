package dev.parley.recorder.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.recorder.manifest.StaleGenerationException;
import dev.parley.testsupport.etcd.EtcdCluster;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Generation fencing on a real etcd. */
class RunnerLeaseIT {
    @TempDir
    static Path tmp;
    static EtcdCluster etcd;
    static Client client;

    @BeforeAll
    static void up() throws Exception {
        etcd = EtcdCluster.start(1);
        client = Client.builder().endpoints(etcd.endpoints().toArray(String[]::new)).build();
    }

    @AfterAll
    static void down() throws Exception {
        client.close();
        etcd.close();
    }

    @Test
    void higherGenerationTakesOverAndLowerOnesStayOut() throws Exception {
        try (RunnerLease g1 = new RunnerLease(client, "j1", 1, "pod-a", 5);
             RunnerLease g2 = new RunnerLease(client, "j1", 2, "pod-b", 5)) {
            g1.acquire();
            g1.verifyCurrent();
            var kv = client.getKVClient().get(bs(RunnerLease.runnerKey("j1"))).get(5, TimeUnit.SECONDS).getKvs().get(0);
            assertThat(RunnerRecord.fromJson(kv.getValue().getBytes())).isEqualTo(new RunnerRecord("pod-a", 1));

            g2.acquire(); // while g1's lease is alive
            assertThatThrownBy(g1::verifyCurrent).isInstanceOf(StaleGenerationException.class);
            g2.verifyCurrent();
            assertThatThrownBy(() -> new RunnerLease(client, "j1", 1, "pod-c", 5).acquire())
                    .isInstanceOf(StaleGenerationException.class);
            assertThatThrownBy(() -> new RunnerLease(client, "j1", 2, "pod-d", 5).acquire())
                    .as("same generation on another pod").isInstanceOf(StaleGenerationException.class);
        }
        // runner key gone with g2's lease, but generation 1 can never come back
        assertThat(client.getKVClient().get(bs(RunnerLease.runnerKey("j1"))).get(5, TimeUnit.SECONDS).getKvs()).isEmpty();
        assertThatThrownBy(() -> new RunnerLease(client, "j1", 1, "pod-a", 5).acquire())
                .isInstanceOf(StaleGenerationException.class).hasMessageContaining("generation 2");
        try (RunnerLease g3 = new RunnerLease(client, "j1", 3, "pod-e", 5)) {
            g3.acquire();
            g3.verifyCurrent();
        }
    }

    @Test
    void expiredLeaseFencesTheRunner() throws Exception {
        RunnerLease g1 = new RunnerLease(client, "j2", 1, "pod-a", 2);
        g1.acquire();
        long lease = client.getKVClient().get(bs(RunnerLease.runnerKey("j2"))).get(5, TimeUnit.SECONDS).getKvs().get(0).getLease();
        client.getLeaseClient().revoke(lease).get(5, TimeUnit.SECONDS); // what expiry does
        assertThatThrownBy(g1::verifyCurrent).isInstanceOf(StaleGenerationException.class);
        g1.close();
    }

    static ByteSequence bs(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }
}
