package dev.parley.controller.outbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Outbox relay to a real HTTP webhook: signed, retried, in order per meeting; failures dead-lettered. */
class OutboxRelayIT {
    static final String SECRET = "webhook-secret-xyz";
    static ControllerHarness h;
    static HttpServer hook;
    static final List<JsonNode> received = new CopyOnWriteArrayList<>();
    static final List<String> badSignatures = new CopyOnWriteArrayList<>();
    static final AtomicInteger calls = new AtomicInteger();
    static volatile int failFirst = 2;

    @BeforeAll
    static void up() throws Exception {
        hook = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        hook.createContext("/hook", ex -> {
            try (ex) {
                byte[] body = ex.getRequestBody().readAllBytes();
                String text = new String(body, StandardCharsets.UTF_8);
                String sig = ex.getRequestHeaders().getFirst("X-Parley-Signature");
                String t = sig.substring(2, sig.indexOf(','));
                String v1 = sig.substring(sig.indexOf("v1=") + 3);
                if (!v1.equals(hmac(t + "." + text))) {
                    badSignatures.add(sig);
                }
                if (calls.incrementAndGet() <= failFirst) {
                    ex.sendResponseHeaders(503, -1);
                    return;
                }
                received.add(ControllerHarness.JSON.readTree(text));
                ex.sendResponseHeaders(204, -1);
            }
        });
        hook.start();
        h = new ControllerHarness(1);
        h.startController("controller-0", Map.of(
                "PARLEY_WEBHOOK_URLS", "http://127.0.0.1:" + hook.getAddress().getPort() + "/hook",
                "PARLEY_WEBHOOK_SECRET", SECRET,
                "PARLEY_WEBHOOK_MAX_ATTEMPTS", "20"));
    }

    @AfterAll
    static void down() throws Exception {
        h.close();
        hook.stop(0);
    }

    static String hmac(String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(data.getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void eventsArriveSignedInCommitOrderDespiteFailures() throws Exception {
        Scenario s = new Scenario(h).meeting(true);
        for (int i = 0; i < 3; i++) {
            s.admittedAttendee(0);
        }
        String m = s.meetingId;
        long total = h.count("SELECT count(*) FROM outbox_events WHERE meeting_id = '" + m + "'");
        await().atMost(Duration.ofSeconds(20)).until(() ->
                h.count("SELECT count(*) FROM outbox_events WHERE meeting_id = '" + m + "' AND published_at IS NOT NULL") == total);
        List<String> order = new java.util.ArrayList<>();
        try (var c = h.db(); var rs = c.createStatement().executeQuery("SELECT event_id FROM outbox_events WHERE meeting_id = '"
                + m + "' ORDER BY position")) {
            while (rs.next()) {
                order.add(rs.getString(1));
            }
        }
        List<String> got = received.stream().filter(n -> n.get("meeting_id").asText().equals(m))
                .map(n -> n.get("event_id").asText()).distinct().toList();
        assertThat(got).containsExactlyElementsOf(order);
        assertThat(badSignatures).isEmpty();
        assertThat(calls.get()).isGreaterThan(received.size()); // the first deliveries failed and were retried
        assertThat(h.count("SELECT count(*) FROM outbox_events WHERE meeting_id = '" + m + "' AND attempts > 0")).isPositive();

        // the relay's conditional updates: a settled event is never settled again (zero rows, not success)
        OutboxRepository rows = h.controllers.get(0).getBean(OutboxRepository.class);
        java.util.UUID published = java.util.UUID.fromString(order.get(0));
        assertThat(rows.markPublished(published)).isZero();
        assertThat(rows.markAllPublished(List.of(published))).isZero();
        assertThat(rows.markDeadLettered(published, "late")).isZero();
        assertThat(rows.scheduleRetry(published, "late", 1000)).isZero();
        assertThat(h.count("SELECT count(*) FROM outbox_events WHERE event_id = '" + published
                + "' AND dead_lettered_at IS NULL AND last_error IS NULL")).isEqualTo(1);
    }
}
