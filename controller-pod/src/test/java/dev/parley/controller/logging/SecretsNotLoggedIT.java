package dev.parley.controller.logging;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.JsonLogCapture;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.WsClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Invariant 6 (secrets stay secret) for logs: a whole join, admit, transport (connect ticket, TURN credentials),
 * signaling join with the ticket, a replayed ticket and refused tokens, with {@code dev.parley} at DEBUG and the
 * pods' JSON encoder: no log line holds a bearer token, a connect ticket, a TURN password or any configured secret,
 * not even a JWT's signature part on its own.
 */
class SecretsNotLoggedIT {
    /** Opened before the harness starts the controller, so its start-up lines (the configuration) are read too. */
    static final JsonLogCapture LOGS = new JsonLogCapture();
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");

    @AfterAll
    static void closeCapture() {
        LOGS.close();
    }

    @Test
    void noTokenTicketTurnPasswordOrSecretReachesALogLine() throws Exception {
        List<String> secrets = new ArrayList<>(List.of(ControllerHarness.INTERNAL_SECRET, ControllerHarness.JWT_SECRET,
                "turn-secret-a", "turn-secret-b", h.ticketKey.getD().toString()));
        Scenario s = new Scenario(h).meeting(true);
        String[] guest = s.admittedAttendee(0);
        var t = s.transport(0, guest[0], guest[1], 0, "transport-" + UUID.randomUUID());
        assertThat(t.status()).as(t.raw()).isEqualTo(200);
        String ticket = t.text("connect_ticket");
        JsonNode turn = t.body().get("ice_servers").get(0);
        try (WsClient ws = new WsClient(t.text("signaling_endpoint"))) {
            ws.send("{\"type\":\"join\",\"connect_ticket\":\"" + ticket + "\"}");
            ws.await("joined", 20_000);
        }
        try (WsClient replay = new WsClient(t.text("signaling_endpoint"))) {
            replay.send("{\"type\":\"join\",\"connect_ticket\":\"" + ticket + "\"}");
            assertThat(replay.await("error", 10_000).get("code").asText()).isEqualTo("ticket_replayed");
        }
        String forged = ControllerHarness.token(s.tenant, s.hostPrincipal, "another-secret-0123456789abcdef0123456789",
                Duration.ofHours(1));
        String expired = ControllerHarness.token(s.tenant, s.hostPrincipal, ControllerHarness.JWT_SECRET, Duration.ofSeconds(-120));
        for (String bad : List.of(forged, expired)) {
            assertThat(h.call(0, "GET", "/v1/meetings/" + s.meetingId, bad, null, null).status()).isEqualTo(401);
        }
        var host = s.transport(0, s.hostToken, s.hostPid, 0, "transport-" + UUID.randomUUID());
        assertThat(host.status()).as(host.raw()).isEqualTo(200);

        secrets.addAll(List.of(s.hostToken, guest[0], forged, expired, ticket, host.text("connect_ticket"),
                turn.get("credential").asText(), host.body().get("ice_servers").get(0).get("credential").asText()));
        for (String jwt : List.of(s.hostToken, guest[0], forged, expired, ticket, host.text("connect_ticket"))) {
            secrets.add(jwt.substring(jwt.lastIndexOf('.') + 1)); // the signature alone is the secret part
        }
        List<String> text = LOGS.text().lines().toList();
        List<JsonNode> lines = LOGS.lines(); // every line parses as one JSON object
        assertThat(lines).as("the flow logged nothing, so this test would prove nothing").isNotEmpty();
        assertThat(lines).anySatisfy(l -> assertThat(l.path("message").asText()).contains("joined"));
        assertThat(lines).anySatisfy(l -> assertThat(l.path("message").asText()).startsWith("starting controller"));
        for (String secret : secrets) {
            assertThat(secret).hasSizeGreaterThan(8);
            assertThat(text.stream().filter(l -> l.contains(secret)).toList()).as("log lines holding a secret").isEmpty();
        }
    }
}
