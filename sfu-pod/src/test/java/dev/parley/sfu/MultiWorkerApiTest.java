package dev.parley.sfu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.jwk.ECKey;
import dev.parley.platform.etcd.SfuEntry;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.platform.ticket.TicketSigner;
import dev.parley.sfu.config.SfuConfig;
import dev.parley.sfu.signaling.AnswerBuilderTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three media workers in one SFU, through the internal API only (no browser): meetings spread over the workers and
 * stay on theirs, each answer names its worker's ports, grants (single and batch), /state, /metrics, drain and the
 * registry entry all see every worker.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MultiWorkerApiTest {
    private static final String SECRET = "multi-worker-secret-0123456789";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Pattern UDP = Pattern.compile("a=candidate:\\S+ 1 udp \\d+ \\S+ (\\d+) typ host");
    private static final Pattern TCP = Pattern.compile("a=candidate:\\S+ 1 tcp \\d+ \\S+ (\\d+) typ host tcptype passive");
    private static SfuServer sfu;
    private static TicketSigner signer;

    @BeforeAll
    static void start() throws Exception {
        ECKey key = TicketKeys.generate();
        signer = new TicketSigner(key);
        sfu = new SfuServer(new SfuConfig("sfu-workers", "local", "127.0.0.1", "127.0.0.1", 0, 0, 0, SECRET,
                key.toPublicJWK().toJSONString(), "", 5, false, 1_000_000, true, SfuConfig.DEFAULT_CONSENT_TIMEOUT_MS, 3));
    }

    @AfterAll
    static void stop() { sfu.close(); }

    private static HttpResponse<String> call(String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sfu.internalPort() + path))
                .header("Authorization", "Bearer " + SECRET)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Creates a publish transport; returns the SDP answer. */
    private static String publish(String meeting, String pid, long epoch) throws Exception {
        String ticket = signer.issue(meeting, pid, 1, "sfu-workers", "dk", Duration.ofSeconds(20)).token();
        ObjectNode n = JSON.createObjectNode();
        n.put("meeting_id", meeting).put("participant_id", pid).put("transport_generation", 1).put("controller_epoch", epoch)
                .put("kind", "publish").put("connect_ticket", ticket).put("sdp_offer", AnswerBuilderTest.offer("sendonly", false));
        ObjectNode g = n.putObject("grant");
        g.put("participant_id", pid).put("version", 1).put("controller_epoch", epoch).put("subscribe", true).put("ttl_ms", 3000);
        g.putObject("publish").put("audio", true).put("video", true).put("screen", false);
        HttpResponse<String> r = call("POST", "/internal/v1/transports", n.toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body()).path("sdp_answer").asText();
    }

    private static int port(Pattern p, String answer) {
        Matcher m = p.matcher(answer);
        assertThat(m.find()).as(answer).isTrue();
        return Integer.parseInt(m.group(1));
    }

    private static JsonNode state() throws Exception {
        HttpResponse<String> r = call("GET", "/internal/v1/state", null);
        assertThat(r.statusCode()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private static int workerOf(JsonNode state, String meeting) {
        for (JsonNode m : state.path("meetings")) if (m.path("meeting_id").asText().equals(meeting)) return m.path("worker").asInt();
        throw new AssertionError("meeting " + meeting + " not in " + state);
    }

    @Test
    void meetingsSpreadOverWorkersAndAnswersNameTheWorkersPorts() throws Exception {
        assertThat(sfu.workers().workers()).hasSize(3);
        Set<Integer> udp = new HashSet<>(), tcp = new HashSet<>();
        for (var w : sfu.workers().workers()) { udp.add(w.udpPort()); tcp.add(w.tcpPort()); }
        assertThat(udp).as("each worker its own UDP port").hasSize(3);
        assertThat(tcp).as("each worker its own ICE-TCP port").hasSize(3);

        String[] answers = new String[3];
        for (int i = 0; i < 3; i++) answers[i] = publish("spread-" + i, "p0", 3);
        String again = publish("spread-0", "p1", 3);                 // a second participant: same meeting, same worker
        JsonNode s = state();
        Set<Integer> used = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            int w = workerOf(s, "spread-" + i);
            used.add(w);
            JsonNode line = s.path("workers").path(w);
            assertThat(line.path("worker").asInt()).isEqualTo(w);
            assertThat(port(UDP, answers[i])).as("udp candidate of spread-" + i).isEqualTo(line.path("udp_port").asInt());
            assertThat(port(TCP, answers[i])).as("tcp candidate of spread-" + i).isEqualTo(line.path("tcp_port").asInt());
        }
        assertThat(used).as("three new meetings on three idle workers").hasSize(3);
        assertThat(port(UDP, again)).isEqualTo(port(UDP, answers[0]));
        int w0 = workerOf(s, "spread-0");
        assertThat(s.path("workers").path(w0).path("transports").asInt()).isGreaterThanOrEqualTo(2);
        assertThat(s.path("transports").asInt()).isGreaterThanOrEqualTo(4);

        SfuEntry e = sfu.entry();                                   // what the registry would publish
        assertThat(e.load().transports()).isEqualTo(sfu.workers().transports()).isGreaterThanOrEqualTo(4);
        assertThat(e.load().meetings()).isGreaterThanOrEqualTo(3);
        assertThat(e.mediaUdpPort()).isEqualTo(sfu.workers().worker(0).udpPort());
        assertThat(e.mediaPorts()).as("every worker's ports, for TURN").extracting(SfuEntry.MediaPorts::udpPort)
                .containsExactlyElementsOf(sfu.workers().workers().stream().map(w -> w.udpPort()).toList());
        assertThat(e.mediaPorts()).extracting(SfuEntry.MediaPorts::tcpPort)
                .containsExactlyElementsOf(sfu.workers().workers().stream().map(w -> w.tcpPort()).toList());

        String metrics = call("GET", "/metrics", null).body();
        assertThat(metrics).contains("parley_sfu_workers 3", "parley_sfu_worker_transports{worker=\"2\"}",
                "parley_sfu_worker_forwarded_packets_total{worker=\"0\"} 0");
        assertThat(metrics).containsPattern("parley_sfu_transports \\d+");
    }

    @Test
    void grantsReachTheMeetingsWorkerAndABatchSpansWorkers() throws Exception {
        publish("grant-a", "a", 5);
        publish("grant-b", "b", 5);
        JsonNode s = state();
        assertThat(workerOf(s, "grant-a")).isNotEqualTo(workerOf(s, "grant-b"));
        String g = "{\"participant_id\":\"%s\",\"version\":%d,\"controller_epoch\":%d,\"publish\":{\"audio\":true,\"video\":false,"
                + "\"screen\":false},\"subscribe\":true,\"ttl_ms\":3000}";
        HttpResponse<String> single = call("PUT", "/internal/v1/grants",
                "{\"meeting_id\":\"grant-b\",\"controller_epoch\":5,\"grants\":[" + g.formatted("b", 2, 5) + "]}");
        assertThat(single.statusCode()).as(single.body()).isEqualTo(200);
        assertThat(single.body()).contains("\"version\":2");
        // one batch over both workers: grant-a's stale epoch is refused on its worker, grant-b's grant applied on its own
        HttpResponse<String> batch = call("PUT", "/internal/v1/grants/batch", "{\"meetings\":["
                + "{\"meeting_id\":\"grant-a\",\"controller_epoch\":4,\"grants\":[" + g.formatted("a", 2, 4) + "]},"
                + "{\"meeting_id\":\"grant-b\",\"controller_epoch\":5,\"grants\":[" + g.formatted("b", 3, 5) + "]}]}");
        assertThat(batch.statusCode()).as(batch.body()).isEqualTo(200);
        JsonNode results = JSON.readTree(batch.body()).path("meetings");
        assertThat(results.path(0).path("meeting_id").asText()).isEqualTo("grant-a");
        assertThat(results.path(0).path("error").path("code").asText()).isEqualTo("stale_epoch");
        assertThat(results.path(1).path("meeting_id").asText()).isEqualTo("grant-b");
        assertThat(results.path(1).path("acks").path(0).path("version").asLong()).isEqualTo(3);
        JsonNode b = null;
        for (JsonNode m : state().path("meetings")) if (m.path("meeting_id").asText().equals("grant-b")) b = m.path("participants").path(0);
        assertThat(b.path("grant_version").asLong()).isEqualTo(3);
    }

    @Test
    @Order(Integer.MAX_VALUE)             // the SFU has no un-drain: this test goes last
    void drainKeepsEveryWorkersMeetingsGoing() throws Exception {
        publish("drain-a", "a", 1);
        publish("drain-b", "b", 1);
        assertThat(workerOf(state(), "drain-a")).isNotEqualTo(workerOf(state(), "drain-b"));
        assertThat(call("POST", "/internal/v1/drain", "{}").statusCode()).isEqualTo(202);
        assertThat(sfu.entry().state()).isEqualTo(SfuEntry.DRAINING);
        assertThat(call("GET", "/readyz", null).statusCode()).isEqualTo(503);
        // meetings already here still take participants, each on its own worker
        String a2 = publish("drain-a", "a2", 1), b2 = publish("drain-b", "b2", 1);
        JsonNode s = state();
        assertThat(port(UDP, a2)).isEqualTo(s.path("workers").path(workerOf(s, "drain-a")).path("udp_port").asInt());
        assertThat(port(UDP, b2)).isEqualTo(s.path("workers").path(workerOf(s, "drain-b")).path("udp_port").asInt());
        assertThat(s.path("state").asText()).isEqualTo("DRAINING");
    }
}
