package dev.parley.controller.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.WsClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SFU events relayed by the owner controller (real controller, PostgreSQL, etcd; the SFU's POSTs made by the
 * test): events about one participant's own media (dynacast {@code publisher_layers}, {@code subscription_paused})
 * reach only that participant's socket, with the SFU's data fields; meeting-wide hints ({@code active_speakers})
 * reach every socket, now with their data too.
 */
class SfuEventRelayIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");

    private static void sfuEvent(String body) {
        var r = h.call(0, "POST", "/internal/v1/sfu-events", ControllerHarness.INTERNAL_SECRET, null, body);
        assertThat(r.status()).as(r.raw()).isEqualTo(204);
    }

    /** Volatile events of the given types received until (and including) one of type {@code until}. */
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

    @Test
    void participantEventsReachOnlyThatParticipantAndMeetingHintsReachEveryone() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        String[] a = s.admittedAttendee(0);
        String[] b = s.admittedAttendee(0);
        try (WsClient wa = s.joinedSocket(a, "ta"); WsClient wb = s.joinedSocket(b, "tb")) {
            sfuEvent("{\"type\":\"publisher_layers\",\"meeting_id\":\"" + s.meetingId + "\",\"participant_id\":\"" + a[1]
                    + "\",\"transport_generation\":1,\"sfu\":\"sfu-0\",\"data\":{\"track_id\":\"" + a[1] + ":1\",\"mid\":\"1\","
                    + "\"max_spatial_layer\":0,\"active_layers\":[true,false,false],\"rids\":[\"q\",\"h\",\"f\"],\"paused\":[1,2],\"resumed\":[]}}");
            sfuEvent("{\"type\":\"subscription_paused\",\"meeting_id\":\"" + s.meetingId + "\",\"participant_id\":\"" + b[1]
                    + "\",\"transport_generation\":1,\"data\":{\"track_id\":\"" + a[1] + ":1\",\"publisher_id\":\"" + a[1]
                    + "\",\"reason\":\"bandwidth\"}}");
            sfuEvent("{\"type\":\"active_speakers\",\"meeting_id\":\"" + s.meetingId + "\",\"data\":{\"sequence\":7,\"speakers\":[\""
                    + a[1] + "\"]}}");

            List<JsonNode> atA = eventsUntil(wa, "active_speakers");
            List<JsonNode> atB = eventsUntil(wb, "active_speakers");
            assertThat(types(atA)).containsExactly("publisher_layers", "active_speakers");
            assertThat(types(atB)).containsExactly("subscription_paused", "active_speakers");

            JsonNode layers = atA.get(0);
            assertThat(layers.get("participant_id").asText()).isEqualTo(a[1]);
            assertThat(layers.get("track_id").asText()).isEqualTo(a[1] + ":1");
            assertThat(layers.get("max_spatial_layer").asInt()).isZero();
            assertThat(layers.get("active_layers").toString()).isEqualTo("[true,false,false]");
            assertThat(layers.get("rids").toString()).isEqualTo("[\"q\",\"h\",\"f\"]");
            assertThat(layers.get("transport_generation").asLong()).isEqualTo(1);

            JsonNode paused = atB.get(0);
            assertThat(paused.get("publisher_id").asText()).isEqualTo(a[1]);
            assertThat(paused.get("reason").asText()).isEqualTo("bandwidth");

            for (List<JsonNode> at : List.of(atA, atB)) {
                JsonNode sp = at.get(1);
                assertThat(sp.get("speakers").toString()).isEqualTo("[\"" + a[1] + "\"]");
                assertThat(sp.get("sequence").asInt()).isEqualTo(7);
                assertThat(sp.has("participant_id")).as("meeting-wide hints keep their shape").isFalse();
            }
        }
    }

    @Test
    void aTargetedEventWithoutParticipantOrForAStrangerReachesNobody() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        String[] a = s.admittedAttendee(0);
        try (WsClient wa = s.joinedSocket(a, "ta")) {
            sfuEvent("{\"type\":\"subscription_resumed\",\"meeting_id\":\"" + s.meetingId + "\",\"data\":{\"track_id\":\"x:1\"}}");
            sfuEvent("{\"type\":\"publisher_layers\",\"meeting_id\":\"" + s.meetingId
                    + "\",\"participant_id\":\"recorder:job:1\",\"data\":{\"track_id\":\"x:1\"}}");
            sfuEvent("{\"type\":\"active_speakers\",\"meeting_id\":\"" + s.meetingId + "\",\"data\":{\"sequence\":1,\"speakers\":[]}}");
            assertThat(types(eventsUntil(wa, "active_speakers"))).containsExactly("active_speakers");
        }
    }
}
