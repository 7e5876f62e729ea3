package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.TestSfuDouble;
import dev.parley.controller.testing.WsClient;
import dev.parley.platform.internal.TransportKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Slot map deltas through the controller (docs/api.md "Slot maps"; real controller, PostgreSQL, etcd; the SFU double
 * records the transport requests, the SFU's event POSTs are made by the test): a subscribe offer's
 * {@code slot_deltas: true} reaches the SFU with the transport request (an offer without it, or a publish offer,
 * does not ask); the answer and {@code subscribed} carry the SFU's {@code slot_version} — the whole map a client
 * asks for after a gap ({@code subscribe} naming no track); a {@code slot_delta} and a whole-map
 * {@code slot_assignments} reach only their participant's sockets, with their data.
 */
class SlotDeltaRelayIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");

    @Test
    void theOptInReachesTheSfuAndDeltasAndWholeMapsReachTheirParticipantOnly() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        String[] d = s.admittedAttendee(0);
        String[] w = s.admittedAttendee(0);
        TestSfuDouble sfu = h.sfus.get(0);
        sfu.slotVersion = 4_200;
        try (WsClient wd = s.joinedSocket(d, "slot-d"); WsClient ww = s.joinedSocket(w, "slot-w")) {
            wd.send("{\"type\":\"offer\",\"transport\":\"subscribe\",\"sdp\":\"v=0\\r\\n\",\"slot_deltas\":true}");
            JsonNode answer = reply(wd, "answer");
            assertThat(answer.path("slot_version").asLong()).as("%s", answer).isEqualTo(4_200);
            var dReq = sfu.transportRequests.getLast();
            assertThat(dReq.participantId()).isEqualTo(d[1]);
            assertThat(dReq.slotDeltas()).as("the subscribe offer asked for deltas").isTrue();

            ww.send("{\"type\":\"offer\",\"transport\":\"subscribe\",\"sdp\":\"v=0\\r\\n\"}");
            reply(ww, "answer");
            assertThat(sfu.transportRequests.getLast().slotDeltas()).as("no flag: whole maps").isNull();
            ww.send("{\"type\":\"offer\",\"transport\":\"publish\",\"sdp\":\"v=0\\r\\n\",\"slot_deltas\":true}");
            JsonNode pub = reply(ww, "answer");
            var pubReq = sfu.transportRequests.getLast();
            assertThat(pubReq.kind()).isEqualTo(TransportKind.PUBLISH);
            assertThat(pubReq.slotDeltas()).as("a publish transport has no slots").isNull();
            assertThat(pub.has("slot_version")).isFalse();

            // the SFU tells a top-N move: d as the moved slot, w as its whole map
            sfuEvent("{\"type\":\"slot_delta\",\"meeting_id\":\"" + s.meetingId + "\",\"participant_id\":\"" + d[1]
                    + "\",\"transport_generation\":1,\"sfu\":\"sfu-0\",\"data\":{\"sequence\":9,\"base\":4200,\"version\":4201,"
                    + "\"changes\":[{\"mid\":\"1\",\"participant_id\":\"" + w[1] + "\",\"track_id\":\"" + w[1]
                    + ":0\",\"kind\":\"audio\",\"source\":\"microphone\"},{\"mid\":\"2\",\"participant_id\":null}]}}");
            sfuEvent("{\"type\":\"slot_assignments\",\"meeting_id\":\"" + s.meetingId + "\",\"participant_id\":\"" + w[1]
                    + "\",\"transport_generation\":1,\"sfu\":\"sfu-0\",\"data\":{\"sequence\":10,\"slot_assignments\":[{\"mid\":\"0\","
                    + "\"participant_id\":\"" + d[1] + "\",\"track_id\":\"" + d[1] + ":0\",\"kind\":\"audio\",\"source\":\"microphone\"}]}}");
            sfuEvent("{\"type\":\"active_speakers\",\"meeting_id\":\"" + s.meetingId + "\",\"data\":{\"sequence\":1,\"speakers\":[]}}");

            List<JsonNode> atD = eventsUntil(wd, "active_speakers");
            List<JsonNode> atW = eventsUntil(ww, "active_speakers");
            assertThat(types(atD)).containsExactly("slot_delta", "active_speakers");
            assertThat(types(atW)).containsExactly("slot_assignments", "active_speakers");
            JsonNode delta = atD.get(0);
            assertThat(delta.path("base").asLong()).isEqualTo(4_200);
            assertThat(delta.path("version").asLong()).isEqualTo(4_201);
            assertThat(delta.path("participant_id").asText()).isEqualTo(d[1]);
            assertThat(delta.path("changes")).hasSize(2);
            assertThat(delta.path("changes").get(0).path("track_id").asText()).isEqualTo(w[1] + ":0");
            assertThat(delta.path("changes").get(1).path("participant_id").isNull()).as("an emptied slot").isTrue();
            assertThat(atW.get(0).path("slot_assignments")).hasSize(1);

            // a gap: the client asks for the whole map with a subscribe naming no track
            sfu.slotVersion = 4_203;
            int before = sfu.subscriptionRequests.size();
            wd.send("{\"type\":\"subscribe\",\"tracks\":[]}");
            JsonNode whole = reply(wd, "subscribed");
            assertThat(whole.path("slot_version").asLong()).isEqualTo(4_203);
            assertThat(whole.path("slot_assignments").isArray()).isTrue();
            assertThat(sfu.subscriptionRequests).hasSize(before + 1);
            assertThat(sfu.subscriptionRequests.getLast().tracks()).as("nothing changes at the SFU").isEmpty();
        }
    }

    private static void sfuEvent(String body) {
        var r = h.call(0, "POST", "/internal/v1/sfu-events", ControllerHarness.INTERNAL_SECRET, null, body);
        assertThat(r.status()).as(r.raw()).isEqualTo(204);
    }

    private static JsonNode reply(WsClient ws, String type) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            JsonNode n = ws.received.poll(1, TimeUnit.SECONDS);
            if (n != null && type.equals(n.path("type").asText())) return n;
            if (n != null && "error".equals(n.path("type").asText())) throw new AssertionError("error: " + n);
        }
        throw new AssertionError("no " + type);
    }

    private static List<JsonNode> eventsUntil(WsClient ws, String until) throws InterruptedException {
        List<JsonNode> out = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            JsonNode n = ws.received.poll(1, TimeUnit.SECONDS);
            if (n == null || !"event".equals(n.path("type").asText()) || !n.path("event").path("volatile").asBoolean()) continue;
            out.add(n.get("event"));
            if (until.equals(n.get("event").path("type").asText())) return out;
        }
        throw new AssertionError("no " + until + " event; got " + out);
    }

    private static List<String> types(List<JsonNode> events) {
        return events.stream().map(e -> e.path("type").asText()).toList();
    }
}
