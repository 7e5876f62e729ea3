package dev.parley.turn.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.etcd.TurnEntry;
import dev.parley.turn.TurnPod;
import dev.parley.turn.support.EtcdProcess;
import dev.parley.turn.support.TurnFixture;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.GetResponse;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The pod's registry entry in a real etcd: present with its lease, DRAINING on drain, gone on stop. */
class EtcdRegistryIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void registersUnderLeaseReportsDrainAndDisappears() throws Exception {
        assumeTrue(Files.isExecutable(EtcdProcess.BINARY), "etcd not installed");
        try (EtcdProcess etcd = new EtcdProcess(); Client client = Client.builder().endpoints(etcd.endpoint()).build()) {
            TurnPod pod = new TurnPod(TurnFixture.config(Map.of("PARLEY_ETCD_ENDPOINTS", etcd.endpoint(),
                    "PARLEY_REGION", "eu-test", "PARLEY_POD_NAME", "turn-7", "PARLEY_LEASE_TTL_SECONDS", "3")),
                    System::currentTimeMillis).start();
            ByteSequence key = ByteSequence.from("/parley/v1/regions/eu-test/turn/turn-7", StandardCharsets.UTF_8);
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> read(client, key) != null);
                JsonNode v = read(client, key);
                assertThat(v.get("state").asText()).isEqualTo("ACTIVE");
                assertThat(v.get("address").asText()).isEqualTo("127.0.0.1");
                assertThat(v.get("ports").get("udp").asInt()).isEqualTo(pod.server().port());
                assertThat(v.get("allocations").asInt()).isZero();
                assertThat(v.has("relayed_bps")).isTrue();
                // the controller reads the same value as platform-core's TurnEntry to hand out TURN URLs
                TurnEntry entry = JSON.readValue(v.toString(), TurnEntry.class);
                assertThat(entry.isActive()).isTrue();
                assertThat(entry.region()).isEqualTo("eu-test");
                assertThat(entry.urls()).contains("turn:127.0.0.1:" + pod.server().port() + "?transport=udp",
                        "turn:127.0.0.1:" + pod.server().port() + "?transport=tcp");
                assertThat(entry.internalUrl()).isEqualTo("http://127.0.0.1:" + pod.internalPort());
                GetResponse raw = client.getKVClient().get(key).get(5, TimeUnit.SECONDS);
                assertThat(raw.getKvs().get(0).getLease()).isEqualTo(pod.registry().leaseId()).isNotZero();
                await().atMost(Duration.ofSeconds(5)).until(pod::ready);

                pod.drain(Duration.ofSeconds(30));
                await().atMost(Duration.ofSeconds(5)).until(() -> {
                    JsonNode n = read(client, key);
                    return n == null || "DRAINING".equals(n.get("state").asText());
                });
                // no allocations: the drain completes and the pod stops, revoking its lease
                assertThat(pod.awaitStopped(5, TimeUnit.SECONDS)).isTrue();
                await().atMost(Duration.ofSeconds(5)).until(() -> read(client, key) == null);
            } finally {
                pod.close();
            }
        }
    }

    private static JsonNode read(Client client, ByteSequence key) throws Exception {
        GetResponse r = client.getKVClient().get(key).get(5, TimeUnit.SECONDS);
        return r.getKvs().isEmpty() ? null : JSON.readTree(r.getKvs().get(0).getValue().toString(StandardCharsets.UTF_8));
    }
}
