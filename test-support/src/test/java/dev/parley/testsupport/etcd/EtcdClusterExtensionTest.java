package dev.parley.testsupport.etcd;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class EtcdClusterExtensionTest {

    @RegisterExtension
    static EtcdClusterExtension etcd = new EtcdClusterExtension();

    @Test
    void writesSucceedWithTheLeaderKilledAndItCatchesUpAfterRestart() throws Exception {
        assertThat(etcd.endpoints()).hasSize(3).doesNotHaveDuplicates();
        try (Client all = client(etcd.endpoints())) {
            var members = all.getClusterClient().listMember().get(10, TimeUnit.SECONDS).getMembers();
            assertThat(members).hasSize(3);
        }

        // kill the leader, the hardest case: the survivors must elect a new one before writes go through
        int leader = etcd.leaderIndex();
        assertThat(leader).isBetween(0, 2);
        etcd.kill(leader);
        assertThat(etcd.member(leader).isRunning()).isFalse();
        assertThat(etcd.runningEndpoints()).hasSize(2);

        ByteSequence key = ByteSequence.from("/parley/failover", UTF_8);
        try (Client survivors = client(etcd.runningEndpoints())) {
            // quorum is 2 of 3: once the survivors have (re-)elected a leader, writes and reads work
            putWithRetry(survivors, key, ByteSequence.from("written-while-leader-down", UTF_8));
            assertThat(survivors.getKVClient().get(key).get(10, TimeUnit.SECONDS).getKvs()).hasSize(1);
        }

        etcd.restart(leader);
        try (Client onlyOld = client(List.of(etcd.member(leader).clientUrl()))) {
            // serializable = answered from the restarted member's own store: it replicated the write
            var kvs = onlyOld.getKVClient().get(key, GetOption.builder().withSerializable(true).build())
                    .get(10, TimeUnit.SECONDS).getKvs();
            assertThat(kvs).hasSize(1);
            assertThat(kvs.get(0).getValue().toString(UTF_8)).isEqualTo("written-while-leader-down");
        }
    }

    /**
     * If member 0 was the leader, the first write can fail with "request timed out, possibly due to previous
     * leader failure" until the election timeout (1 s) has passed: retry for a bounded time.
     */
    private static void putWithRetry(Client client, ByteSequence key, ByteSequence value) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                client.getKVClient().put(key, value).get(5, TimeUnit.SECONDS);
                return;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    private static Client client(List<String> endpoints) {
        return Client.builder().endpoints(endpoints.toArray(String[]::new)).build();
    }
}
