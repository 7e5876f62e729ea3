package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.TestSfuDouble;
import dev.parley.controller.testing.WsClient;
import dev.parley.platform.etcd.ProcessLease;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An offer that reaches the owner while it cannot confirm its etcd lease is answered with a retryable
 * {@code lease_in_doubt} naming the transport, not {@code not_authorized} (which the SDK must treat as "this
 * generation is refused" and answer with a new transport generation). Nothing reaches the SFU meanwhile.
 * Real controller, PostgreSQL and etcd; the SFU is the test double.
 */
class OfferWhileLeaseInDoubtIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");

    private static JsonNode reply(WsClient ws) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            JsonNode n = ws.received.poll(1, TimeUnit.SECONDS);
            if (n != null && List.of("answer", "error").contains(n.path("type").asText())) return n;
        }
        throw new AssertionError("no reply");
    }

    private static final String OFFER = "{\"type\":\"offer\",\"transport\":\"subscribe\",\"sdp\":\"v=0\\r\\n\"}";

    @Test
    void anOfferDuringLeaseDoubtIsToldToRetryNotRefused() throws Exception {
        TestSfuDouble sfu = h.sfus.get(0);
        Scenario s = new Scenario(h).meeting(false);
        String[] a = s.admittedAttendee(0);
        ProcessLease lease = h.controllers.get(0).getBean(ProcessLease.class);
        try (WsClient ws = s.joinedSocket(a, "doubt")) {
            ws.send(OFFER);
            assertThat(reply(ws).path("type").asText()).as("a confirmed lease answers").isEqualTo("answer");
            int created = sfu.transportsCreated.get();

            lease.haltKeepAlive();
            try {
                await().atMost(Duration.ofSeconds(3)).until(() -> !lease.isConfirmed());
                ws.send(OFFER);
                JsonNode r = reply(ws);
                assertThat(r.path("type").asText()).as(r.toString()).isEqualTo("error");
                assertThat(r.path("code").asText()).isEqualTo("lease_in_doubt");
                assertThat(r.path("transport").asText()).isEqualTo("subscribe");
                assertThat(r.path("retry_after_ms").asInt()).isPositive();
                assertThat(sfu.transportsCreated.get()).as("nothing reached the SFU").isEqualTo(created);
            } finally {
                lease.resumeKeepAlive();
            }
        }
    }
}
