package dev.parley.sfu.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.etcd.EtcdKeys;
import com.nimbusds.jose.jwk.ECKey;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.platform.ticket.TicketSigner;
import dev.parley.sfu.signaling.AnswerBuilderTest;
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

/**
 * The SFU (two media workers) registers in a real etcd under its process lease with the load of all its workers,
 * turns DRAINING on drain, and vanishes when it stops.
 */
class SfuRegistrationIT {
    @RegisterExtension
    static EtcdExtension etcd = new EtcdExtension();
    private static final String SECRET = "registry-test-secret-0123456789";
    private final ObjectMapper json = new ObjectMapper();

    private JsonNode entry(Client c, String key) throws Exception {
        List<KeyValue> kvs = c.getKVClient().get(EtcdKeys.bytes(key)).get(5, TimeUnit.SECONDS).getKvs();
        return kvs.isEmpty() ? null : json.readTree(kvs.get(0).getValue().getBytes());
    }

    private String transport(TicketSigner signer, String meeting) throws Exception {
        var n = json.createObjectNode();
        n.put("meeting_id", meeting).put("participant_id", "p").put("transport_generation", 1).put("controller_epoch", 1)
                .put("kind", "publish").put("connect_ticket", signer.issue(meeting, "p", 1, "sfu-reg", "dk", Duration.ofSeconds(20)).token())
                .put("sdp_offer", AnswerBuilderTest.offer("sendonly", false));
        return json.writeValueAsString(n);
    }

    @Test
    void registersUnderLeaseDrainsAndDisappears() throws Exception {
        String key = EtcdKeys.sfu("local", "sfu-reg");
        HttpClient http = HttpClient.newHttpClient();
        try (Client c = Client.builder().endpoints(etcd.endpoints().toArray(String[]::new)).build()) {
            ECKey ticketKey = TicketKeys.generate();
            SfuServer sfu = new SfuServer(new SfuConfig("sfu-reg", "local", "127.0.0.1", "127.0.0.1", 0, 0, 0, SECRET,
                    ticketKey.toPublicJWK().toJSONString(), etcd.endpointsCsv(), 3, false, 1_000_000, true,
                    SfuConfig.DEFAULT_CONSENT_TIMEOUT_MS, 2));
            try {
                JsonNode e = entry(c, key);
                assertThat(e).isNotNull();
                assertThat(e.path("state").asText()).isEqualTo("ACTIVE");
                assertThat(e.path("media_udp_port").asInt()).isEqualTo(sfu.udpPort());
                assertThat(e.path("media_tcp_port").asInt()).isEqualTo(sfu.tcpPort());
                assertThat(e.path("media_workers")).hasSize(2);
                for (int i = 0; i < 2; i++) {
                    assertThat(e.path("media_workers").path(i).path("udp_port").asInt()).isEqualTo(sfu.workers().worker(i).udpPort());
                    assertThat(e.path("media_workers").path(i).path("tcp_port").asInt()).isEqualTo(sfu.workers().worker(i).tcpPort());
                }
                assertThat(e.path("internal_url").asText()).isEqualTo("http://127.0.0.1:" + sfu.internalPort());
                assertThat(c.getKVClient().get(EtcdKeys.bytes(key)).get().getKvs().get(0).getLease()).isNotZero();
                String base = "http://127.0.0.1:" + sfu.internalPort();
                // one meeting on each of the two workers: the entry carries the process's total over both
                for (String m : List.of("reg-a", "reg-b")) {
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/internal/v1/transports"))
                            .header("Authorization", "Bearer " + SECRET)
                            .POST(HttpRequest.BodyPublishers.ofString(transport(new TicketSigner(ticketKey), m))).build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                }
                assertThat(sfu.workers().workers()).allSatisfy(w -> assertThat(w.meetings()).isEqualTo(1));
                await().atMost(Duration.ofSeconds(6)).untilAsserted(() -> {
                    JsonNode load = entry(c, key).path("load");
                    assertThat(load.path("transports").asInt()).isEqualTo(2);
                    assertThat(load.path("meetings").asInt()).isEqualTo(2);
                });
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
