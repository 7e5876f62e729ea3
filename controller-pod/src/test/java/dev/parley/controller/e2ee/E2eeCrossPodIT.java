package dev.parley.controller.e2ee;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.WsClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Base64;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Key messages of a socket accepted by a controller that does not own the meeting go through the owner (like
 * offers), and the owner's relay reaches sockets on the other pod: identities and envelopes flow both ways between
 * a socket on the owner and one on the other pod, and a bad batch from the other pod is refused there too.
 */
class E2eeCrossPodIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-a", "controller-b");

    private static final String IV = Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[12]);
    private static final String CT = Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[44]);

    private static String pub(int tag) {
        byte[] p = new byte[65];
        p[0] = 4;
        p[1] = (byte) tag;
        return Base64.getUrlEncoder().withoutPadding().encodeToString(p);
    }

    private static WsClient socketOn(Scenario s, int pod, String[] who) throws Exception {
        var t = s.transport(0, who[0], who[1], 0, "t-" + who[1]);
        assertThat(t.status()).as(t.raw()).isEqualTo(200);
        WsClient ws = new WsClient(h.configs.get(pod).signalingEndpoint());
        ws.send("{\"type\":\"join\",\"connect_ticket\":\"" + t.text("connect_ticket") + "\"}");
        ws.await("joined", 20_000);
        return ws;
    }

    /** The next e2ee event, error or identities reply within {@code millis}; null if none. */
    private static JsonNode next(WsClient ws, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < deadline) {
            JsonNode n = ws.received.poll(50, TimeUnit.MILLISECONDS);
            if (n == null) continue;
            if ("error".equals(n.path("type").asText()) || "e2ee_identities".equals(n.path("type").asText())) return n;
            if (n.path("event").path("type").asText().startsWith("e2ee_")) return n.get("event");
        }
        return null;
    }

    private static String batch(long epoch, long seq, String to) {
        return "{\"type\":\"e2ee_keys\",\"controller_epoch\":" + epoch + ",\"seq\":" + seq + ",\"key_generation\":" + seq
                + ",\"envelopes\":[{\"to\":\"" + to + "\",\"iv\":\"" + IV + "\",\"ciphertext\":\"" + CT + "\"}]}";
    }

    @Test
    void keysFlowBetweenTheOwnersSocketsAndAnotherPodsSockets() throws Exception {
        Scenario s = new Scenario(h);
        var r = h.call(0, "POST", "/v1/meetings", s.hostToken, "create-" + UUID.randomUUID(),
                "{\"title\":\"Secret\",\"waiting_room_enabled\":false,\"encryption_mode\":\"e2ee\"}");
        s.meetingId = r.text("meeting_id");
        s.hostPid = s.join(0, s.hostToken, UUID.randomUUID()).text("participant_id");
        String[] b = s.admittedAttendee(0);
        long epoch = Long.parseLong(h.scalar("SELECT controller_epoch FROM meetings WHERE meeting_id = '" + s.meetingId + "'"));
        try (WsClient onOwner = socketOn(s, 0, new String[]{s.hostToken, s.hostPid});
             WsClient onOther = socketOn(s, 1, b)) {
            onOther.send("{\"type\":\"e2ee_identity\",\"public_key\":\"" + pub(2) + "\"}");
            assertThat(next(onOther, 10_000).path("type").asText()).isEqualTo("e2ee_identities");
            JsonNode heard = next(onOwner, 10_000);
            assertThat(heard.path("participant_id").asText()).isEqualTo(b[1]);

            onOwner.send("{\"type\":\"e2ee_identity\",\"public_key\":\"" + pub(1) + "\"}");
            assertThat(next(onOwner, 10_000).path("identities").toString()).contains(b[1]);
            assertThat(next(onOther, 10_000).path("participant_id").asText()).as("owner → other pod").isEqualTo(s.hostPid);

            onOwner.send(batch(epoch, 1, b[1]));
            JsonNode k = next(onOther, 10_000);
            assertThat(k.path("type").asText()).isEqualTo("e2ee_key");
            assertThat(k.path("from").asText()).isEqualTo(s.hostPid);

            onOther.send(batch(epoch, 1, s.hostPid));
            JsonNode back = next(onOwner, 10_000);
            assertThat(back.path("type").asText()).isEqualTo("e2ee_key");
            assertThat(back.path("from").asText()).isEqualTo(b[1]);

            onOther.send(batch(epoch, 1, s.hostPid));
            JsonNode refused = next(onOther, 10_000);
            assertThat(refused.path("code").asText()).isEqualTo("e2ee_envelope_refused");
            assertThat(refused.path("reason").asText()).isEqualTo("replayed");
            assertThat(next(onOwner, 500)).as("nothing relayed").isNull();
        }
    }
}
