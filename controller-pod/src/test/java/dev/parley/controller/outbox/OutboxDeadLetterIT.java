package dev.parley.controller.outbox;

import dev.parley.controller.testing.ControllerHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A webhook that never answers: the event is dead-lettered after the configured attempts and visible. */
class OutboxDeadLetterIT {
    static ControllerHarness h;

    @BeforeAll
    static void up() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        h = new ControllerHarness(0);
        h.startController("controller-0", Map.of(
                "PARLEY_WEBHOOK_URLS", "http://127.0.0.1:" + closedPort + "/hook",
                "PARLEY_WEBHOOK_SECRET", "s",
                "PARLEY_WEBHOOK_MAX_ATTEMPTS", "3"));
    }

    @AfterAll
    static void down() throws Exception {
        h.close();
    }

    @Test
    void undeliverableEventIsDeadLetteredAndListed() throws Exception {
        String token = ControllerHarness.token(UUID.randomUUID(), UUID.randomUUID());
        var r = h.call(0, "POST", "/v1/meetings", token, "dl-1",
                "{\"title\":\"t\",\"waiting_room_enabled\":true,\"encryption_mode\":\"transport\"}");
        String m = r.text("meeting_id");
        await().atMost(Duration.ofSeconds(15)).until(() ->
                h.count("SELECT count(*) FROM outbox_events WHERE meeting_id = '" + m + "' AND dead_lettered_at IS NOT NULL") == 1);
        assertThat(h.count("SELECT attempts FROM outbox_events WHERE meeting_id = '" + m + "'")).isEqualTo(3);
        assertThat(h.scalar("SELECT last_error FROM outbox_events WHERE meeting_id = '" + m + "'")).contains("/hook");
        var list = h.call(h.base(0), "GET", "/internal/v1/outbox/dead-letters", ControllerHarness.INTERNAL_SECRET, null, null, null);
        assertThat(list.status()).isEqualTo(200);
        assertThat(list.body().get("dead_letters").get(0).get("meeting_id").asText()).isEqualTo(m);
        var unauth = h.call(h.base(0), "GET", "/internal/v1/outbox/dead-letters", "wrong", null, null, null);
        assertThat(unauth.status()).isEqualTo(401);
    }
}
