package dev.parley.sfu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.jwk.ECKey;
import dev.parley.media.ice.IceChecks;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.platform.ticket.TicketSigner;
import dev.parley.sfu.config.SfuConfig;
import dev.parley.sfu.signaling.AnswerBuilderTest;
import org.junit.jupiter.api.Test;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * RFC 7675 consent freshness through the real SFU process wiring (sockets, media-thread timer, router, events):
 * a peer that keeps sending valid checks keeps its transport; once the checks stop the transport is closed after
 * the consent timeout, the owner controller gets {@code transport_closed}, and the ufrag is forgotten.
 * The timeout is 2 s here (30 s in production, PARLEY_SFU_CONSENT_TIMEOUT_MS) so the test stays short.
 */
class ConsentFreshnessIT {
    private static final String SECRET = "test-internal-secret-0123456789";
    private static final String POD = "sfu-consent";
    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void checksKeepTheTransportAndSilenceClosesIt() throws Exception {
        ECKey key = TicketKeys.generate();
        TicketSigner signer = new TicketSigner(key);
        Queue<JsonNode> events = new ConcurrentLinkedQueue<>();
        com.sun.net.httpserver.HttpServer sink = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 16);
        sink.createContext("/events", ex -> {
            try (ex) {
                events.add(json.readTree(ex.getRequestBody()));
                ex.sendResponseHeaders(204, -1);
            }
        });
        sink.start();
        try (SfuServer sfu = new SfuServer(new SfuConfig(POD, "local", "127.0.0.1", "127.0.0.1", 0, 0, 0, SECRET,
                key.toPublicJWK().toJSONString(), "", 5, false, 4_000_000, true, 2_000));
             DatagramSocket udp = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            ObjectNode body = json.createObjectNode();
            body.put("meeting_id", "m1").put("participant_id", "p1").put("transport_generation", 1)
                    .put("controller_epoch", 1).put("kind", "publish")
                    .put("connect_ticket", signer.issue("m1", "p1", 1, POD, "dk", Duration.ofSeconds(20)).token())
                    .put("sdp_offer", AnswerBuilderTest.offer("sendonly", false))
                    .put("events_url", "http://127.0.0.1:" + sink.getAddress().getPort() + "/events");
            body.putObject("grant").put("participant_id", "p1").put("version", 1).put("controller_epoch", 1)
                    .put("subscribe", true).put("ttl_ms", 3000)
                    .putObject("publish").put("audio", true).put("video", true).put("screen", false);
            String answer = call(sfu, "POST", "/internal/v1/transports", body).get("sdp_answer").asText();
            String ufrag = attr(answer, "ice-ufrag"), pwd = attr(answer, "ice-pwd");
            byte[] key1 = pwd.getBytes(StandardCharsets.UTF_8);
            udp.setSoTimeout(1500);

            // a valid check every 500 ms for 4 s — twice the timeout — keeps the transport
            long until = System.nanoTime() + 4_000_000_000L;
            int answered = 0;
            while (System.nanoTime() < until) {
                if (check(udp, sfu.udpPort(), ufrag + ":ufA1", key1)) answered++;
                Thread.sleep(500);
            }
            assertThat(answered).as("binding responses").isGreaterThanOrEqualTo(4);
            assertThat(publishTransport(sfu)).isNotNull().isNotEqualTo("FAILED");
            assertThat(count(events, "transport_closed")).isZero();

            // silence: closed after the timeout, the controller is told, and the old credentials are gone
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                    .until(() -> count(events, "transport_closed") == 1);
            assertThat(publishTransport(sfu)).isNull();
            long unknown = sfu.metrics().drops("stun_unknown_ufrag");
            assertThat(check(udp, sfu.udpPort(), ufrag + ":ufA1", key1)).as("check after close is answered").isFalse();
            assertThat(sfu.metrics().drops("stun_unknown_ufrag")).isEqualTo(unknown + 1);
        } finally {
            sink.stop(0);
        }
    }

    /** Sends one authenticated Binding request; true if its authenticated success response came back (late
     *  responses to earlier requests are skipped by transaction id). */
    private static boolean check(DatagramSocket udp, int port, String username, byte[] key) throws Exception {
        byte[] tid = new byte[12];
        java.util.concurrent.ThreadLocalRandom.current().nextBytes(tid);
        byte[] b = new byte[512];
        IceChecks ice = new IceChecks();
        int n = ice.writeBindingRequest(b, 0, tid, username, 1_845_501_695L, true, 42L, true, key);
        udp.send(new DatagramPacket(b, n, InetAddress.getLoopbackAddress(), port));
        byte[] r = new byte[512];
        while (true) {
            DatagramPacket p = new DatagramPacket(r, r.length);
            try {
                udp.receive(p);
            } catch (SocketTimeoutException e) {
                return false;
            }
            var m = ice.parse(r, 0, p.getLength());
            if (m == null || !m.transactionIdEquals(tid)) continue;
            return m.messageType() == IceChecks.BINDING_SUCCESS && IceChecks.verify(m, key);
        }
    }

    private String publishTransport(SfuServer sfu) throws Exception {
        for (JsonNode m : call(sfu, "GET", "/internal/v1/state", null).path("meetings")) {
            for (JsonNode p : m.path("participants")) {
                if ("p1".equals(p.path("participant_id").asText())) {
                    return p.path("publish_transport").isNull() ? null : p.path("publish_transport").asText();
                }
            }
        }
        return null;
    }

    private static long count(Queue<JsonNode> events, String type) {
        return events.stream().filter(e -> type.equals(e.path("type").asText())).count();
    }

    private static String attr(String sdp, String name) {
        Matcher m = Pattern.compile("a=" + name + ":(\\S+)").matcher(sdp);
        assertThat(m.find()).as(name).isTrue();
        return m.group(1);
    }

    private JsonNode call(SfuServer sfu, String method, String path, JsonNode body) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sfu.internalPort() + path))
                .header("Authorization", "Bearer " + SECRET).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body))).build();
        HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isEqualTo(200);
        return json.readTree(r.body());
    }
}
