package dev.parley.testsupport.etcd;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.testsupport.net.FreePorts;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class EtcdExtensionTest {

    @RegisterExtension
    static EtcdExtension etcd = new EtcdExtension();

    private static final ByteSequence KEY = ByteSequence.from("/parley/test/meeting-1", UTF_8);

    @Test
    void putGetSurvivesKillAndRestart() throws Exception {
        assertThat(etcd.endpoints()).singleElement().asString().matches("http://127\\.0\\.0\\.1:\\d+");
        try (Client client = client()) {
            client.getKVClient().put(KEY, ByteSequence.from("owner=sfu-0;epoch=7", UTF_8)).get(10, TimeUnit.SECONDS);
            assertThat(value(client)).isEqualTo("owner=sfu-0;epoch=7");
        }

        long pidBefore = etcd.process().pid();
        etcd.kill();
        assertThat(etcd.process().isRunning()).isFalse();
        assertThat(FreePorts.isListening(etcd.process().clientPort())).isFalse();
        assertThat(etcd.process().isHealthy()).isFalse();

        etcd.restart();
        assertThat(etcd.process().pid()).isPositive().isNotEqualTo(pidBefore);
        try (Client client = client()) {
            // same data directory: the write before the kill is still there
            assertThat(value(client)).isEqualTo("owner=sfu-0;epoch=7");
        }
    }

    private static Client client() {
        return Client.builder().endpoints(etcd.endpoints().toArray(String[]::new)).build();
    }

    private static String value(Client client) throws Exception {
        var kvs = client.getKVClient().get(KEY).get(10, TimeUnit.SECONDS).getKvs();
        assertThat(kvs).hasSize(1);
        return kvs.get(0).getValue().toString(UTF_8);
    }
}
