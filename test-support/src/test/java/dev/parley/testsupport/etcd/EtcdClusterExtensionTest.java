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
    void writesSucceedWithOneMemberKilledAndItCatchesUpAfterRestart() throws Exception {
        assertThat(etcd.endpoints()).hasSize(3).doesNotHaveDuplicates();
        try (Client all = client(etcd.endpoints())) {
            var members = all.getClusterClient().listMember().get(10, TimeUnit.SECONDS).getMembers();
            assertThat(members).hasSize(3);
        }

        etcd.kill(0);
        assertThat(etcd.member(0).isRunning()).isFalse();
        assertThat(etcd.runningEndpoints()).hasSize(2);

        ByteSequence key = ByteSequence.from("/parley/failover", UTF_8);
        try (Client survivors = client(etcd.runningEndpoints())) {
            // quorum is 2 of 3: a linearizable write and read still work
            survivors.getKVClient().put(key, ByteSequence.from("written-while-0-down", UTF_8)).get(15, TimeUnit.SECONDS);
            assertThat(survivors.getKVClient().get(key).get(10, TimeUnit.SECONDS).getKvs()).hasSize(1);
        }

        etcd.restart(0);
        try (Client onlyZero = client(List.of(etcd.member(0).clientUrl()))) {
            // serializable = answered from member 0's own store, so this shows it replicated the write
            var kvs = onlyZero.getKVClient().get(key, GetOption.builder().withSerializable(true).build())
                    .get(10, TimeUnit.SECONDS).getKvs();
            assertThat(kvs).hasSize(1);
            assertThat(kvs.get(0).getValue().toString(UTF_8)).isEqualTo("written-while-0-down");
        }
    }

    private static Client client(List<String> endpoints) {
        return Client.builder().endpoints(endpoints.toArray(String[]::new)).build();
    }
}
