package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.TestSfuDouble;
import dev.parley.controller.testing.WsClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The per-meeting {@code audio_top_n} (top-N audio, docs/api.md): validated at creation (400 {@code invalid_field}
 * naming the field, nothing written), stored, shown on the meeting, given to the client with its transport (so it
 * offers that many audio slots) and carried to the SFU with every transport request (real controller, PostgreSQL,
 * etcd; the SFU double records what it receives).
 */
class AudioTopNSettingIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");

    @Test
    void outOfRangeOrMistypedValuesAreRefusedAndWriteNothing() throws Exception {
        Scenario s = new Scenario(h);
        long before = h.count("SELECT count(*) FROM meetings");
        for (String bad : List.of("0", "17", "-1", "\"3\"", "2.5", "true")) {
            var r = h.call(0, "POST", "/v1/meetings", s.hostToken, "bad-" + UUID.randomUUID(),
                    "{\"title\":\"t\",\"waiting_room_enabled\":false,\"encryption_mode\":\"transport\",\"audio_top_n\":" + bad + "}");
            assertThat(r.status()).as(bad + ": " + r.raw()).isEqualTo(400);
            assertThat(r.contentType()).startsWith("application/problem+json");
            assertThat(r.text("code")).as(r.raw()).isEqualTo("invalid_field");
            assertThat(r.text("field")).as(r.raw()).isEqualTo("audio_top_n");
        }
        assertThat(h.count("SELECT count(*) FROM meetings")).isEqualTo(before);
    }

    @Test
    void theSettingIsShownGivenToTheClientAndCarriedToTheSfu() throws Exception {
        Scenario plain = new Scenario(h).meeting(false);
        assertThat(meeting(plain).path("audio_top_n").asInt()).as("default").isEqualTo(3);

        Scenario s = new Scenario(h).meeting(false, 0, ",\"audio_top_n\":2");
        assertThat(meeting(s).path("audio_top_n").asInt()).isEqualTo(2);
        String[] a = s.admittedAttendee(0);
        var t = s.transport(0, a[0], a[1], 0, "topn-t");
        assertThat(t.status()).as(t.raw()).isEqualTo(200);
        assertThat(t.body().path("audio_top_n").asInt()).as("the client offers this many audio slots").isEqualTo(2);

        TestSfuDouble sfu = h.sfus.get(0);
        try (WsClient ws = s.joinedSocket(a, "topn-t")) {         // same key and body: the same transport
            ws.send("{\"type\":\"offer\",\"transport\":\"subscribe\",\"sdp\":\"v=0\\r\\n\"}");
            assertThat(reply(ws).path("type").asText()).isEqualTo("answer");
            var req = sfu.transportRequests.getLast();
            assertThat(req.participantId()).isEqualTo(a[1]);
            assertThat(req.audioTopN()).isEqualTo(2);
        }
    }

    private static JsonNode meeting(Scenario s) {
        var r = h.call(0, "GET", "/v1/meetings/" + s.meetingId, s.hostToken, null, null);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        return r.body();
    }

    private static JsonNode reply(WsClient ws) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            JsonNode n = ws.received.poll(1, TimeUnit.SECONDS);
            if (n != null && List.of("answer", "error").contains(n.path("type").asText())) return n;
        }
        throw new AssertionError("no reply");
    }
}
