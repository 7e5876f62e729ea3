package dev.parley.sfu.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.etcd.EtcdKeys;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.sfu.SfuServer;
import dev.parley.sfu.config.SfuConfig;
import dev.parley.testsupport.etcd.EtcdExtension;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The SFU registers in a real etcd under its process lease, turns DRAINING on drain, and vanishes when it stops. */
class SfuRegistrationIT {
    @RegisterExtension
    static EtcdExtension etcd = new EtcdExtension();
    private static final String SECRET = "registry-test-secret-0123456789";
    private final ObjectMapper json = new ObjectMapper();

    private JsonNode entry(Client c, String key) throws Exception {
        List<KeyValue> kvs = c.getKVClient().get(EtcdKeys.bytes(key)).get(5, TimeUnit.SECONDS).getKvs();
        return kvs.isEmpty() ? null : json.readTree(kvs.get(0).getValue().getBytes());
    }

    @Test
    void registersUnderLeaseDrainsAndDisappears() throws Exception {
        String key = EtcdKeys.sfu("local", "sfu-reg");
        HttpClient http = HttpClient.newHttpClient();
        try (Client c = Client.builder().endpoints(etcd.endpoints().toArray(String[]::new)).build()) {
            SfuServer sfu = new SfuServer(new SfuConfig("sfu-reg", "local", "127.0.0.1", "127.0.0.1", 0, 0, 0, SECRET,
                    TicketKeys.generate().toPublicJWK().toJSONString(), etcd.endpointsCsv(), 3, false, 1_000_000, true));
            try {
                JsonNode e = entry(c, key);
                assertThat(e).isNotNull();
                assertThat(e.path("state").asText()).isEqualTo("ACTIVE");
                assertThat(e.path("media_udp_port").asInt()).isEqualTo(sfu.udpPort());
                assertThat(e.path("media_tcp_port").asInt()).isEqualTo(sfu.tcpPort());
                assertThat(e.path("internal_url").asText()).isEqualTo("http://127.0.0.1:" + sfu.internalPort());
                assertThat(c.getKVClient().get(EtcdKeys.bytes(key)).get().getKvs().get(0).getLease()).isNotZero();
                String base = "http://127.0.0.1:" + sfu.internalPort();
                assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/readyz")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);

                HttpResponse<String> drain = http.send(HttpRequest.newBuilder(URI.create(base + "/internal/v1/drain"))
                        .header("Authorization", "Bearer " + SECRET).POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(drain.statusCode()).isEqualTo(202);
                await().atMost(Duration.ofSeconds(6)).untilAsserted(() -> assertThat(entry(c, key).path("state").asText()).isEqualTo("DRAINING"));
                assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/readyz")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(503);
            } finally {
                sfu.close();
            }
            // the lease is revoked on close (or expires within its ttl): the entry disappears
            await().atMost(Duration.ofSeconds(6)).untilAsserted(() -> assertThat(entry(c, key)).isNull());
        }
    }
}
