package dev.parley.controller.interest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.WsClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Positions on a socket of a pod that does not own the meeting (controller B, index 1) are relayed to the owner
 * (controller A) like offers: the owner's interest sets include that participant, its interest events reach it on
 * B, and a malformed position is refused on B's socket with the owner's error.
 */
class AreaOfInterestCrossPodIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-a", "controller-b");

    private static WsClient joinedOn(Scenario s, int pod, String[] who) throws Exception {
        var t = s.transport(0, who[0], who[1], 0, "t-" + who[1]);
        assertThat(t.status()).as(t.raw()).isEqualTo(200);
        WsClient ws = new WsClient(h.configs.get(pod).signalingEndpoint());
        ws.send("{\"type\":\"join\",\"connect_ticket\":\"" + t.text("connect_ticket") + "\"}");
        ws.await("joined", 20_000);
        return ws;
    }

    /** The participants of the next interest event (other messages skipped). */
    private static List<String> nextInterest(WsClient ws) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            JsonNode n = ws.received.poll(200, TimeUnit.MILLISECONDS);
            if (n != null && "interest".equals(n.path("event").path("type").asText())) {
                List<String> ids = new ArrayList<>();
                n.path("event").path("participants").forEach(x -> ids.add(x.asText()));
                return ids;
            }
        }
        throw new AssertionError("no interest event");
    }

    @Test
    void aNonOwnersSocketTakesPartThroughTheOwner() throws Exception {
        Scenario s = new Scenario(h);
        var r = h.call(0, "POST", "/v1/meetings", s.hostToken, "create-" + UUID.randomUUID(),
                "{\"title\":\"Plaza\",\"waiting_room_enabled\":false,\"encryption_mode\":\"transport\","
                        + "\"subscription_mode\":\"area_of_interest\",\"area_of_interest\":{\"radius\":10,\"max_participants\":4}}");
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        s.meetingId = r.text("meeting_id");
        var host = s.join(0, s.hostToken, UUID.randomUUID());
        assertThat(host.status()).as(host.raw()).isEqualTo(201); // A owns the meeting from here
        String[] a = s.admittedAttendee(0);
        String[] b = s.admittedAttendee(0);
        try (WsClient onA = joinedOn(s, 0, a); WsClient onB = joinedOn(s, 1, b)) {
            Thread.sleep(1000); // B's socket announced to the owner (presence "open"), so volatile events follow it
            onA.send("{\"type\":\"position\",\"x\":0,\"y\":0}");
            assertThat(nextInterest(onA)).isEmpty();
            onB.send("{\"type\":\"position\",\"x\":3,\"y\":4}");
            assertThat(nextInterest(onA)).containsExactly(b[1]);
            assertThat(nextInterest(onB)).as("relayed to the owner, answered on B").containsExactly(a[1]);

            onB.send("{\"type\":\"position\",\"x\":\"far\",\"y\":4}");
            assertThat(onB.await("error", 15_000).path("code").asText()).isEqualTo("invalid_position");

            Thread.sleep(150);
            onB.send("{\"type\":\"position\",\"x\":50,\"y\":50}");
            assertThat(nextInterest(onA)).isEmpty();
            assertThat(nextInterest(onB)).isEmpty();
        }
    }
}
