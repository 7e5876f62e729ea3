package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.TestSfuDouble;
import dev.parley.controller.testing.WsClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Drain phase 3 on the controller (real PostgreSQL, real etcd, SFU test doubles registered in etcd): when
 * the meeting's SFU turns DRAINING, every socket on it gets {@code new_generation_required}
 * ({@code sfu_draining}); the new generation is placed on the ACTIVE SFU; the old SFU is told to release the
 * participant (DELETE) once the new one holds the grant; sockets on the new SFU are left alone.
 */
class SfuDrainMigrationIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(2, "controller-0");

    private static String sfuOf(String pid) throws Exception {
        return h.scalar("SELECT sfu_pod FROM meeting_participants WHERE participant_id = '" + pid + "'");
    }

    /** Connects a socket with the transport's ticket and offers a publish transport; returns the open socket. */
    private static WsClient connectAndOffer(ControllerHarness.Res transport) throws Exception {
        WsClient ws = new WsClient(transport.text("signaling_endpoint"));
        ws.send("{\"type\":\"join\",\"connect_ticket\":\"" + transport.text("connect_ticket") + "\"}");
        JsonNode joined = ws.await("joined", 10_000);
        assertThat(joined.path("transport_generation").asLong()).isEqualTo(transport.body().path("transport_generation").asLong());
        ws.send("{\"type\":\"offer\",\"transport\":\"publish\",\"sdp\":\"v=0\\r\\n\"}");
        ws.await("answer", 10_000);
        return ws;
    }

    @Test
    void drainingSfuMovesEverySocketToANewGenerationOnTheActiveSfu() throws Exception {
        TestSfuDouble s0 = h.sfus.get(0);
        TestSfuDouble s1 = h.sfus.get(1);
        s0.setStress(0.1);
        s1.setStress(0.6);
        Thread.sleep(500);

        Scenario s = new Scenario(h).meeting(false);
        String[] host = {s.hostToken, s.hostPid};
        String[] guest = s.admittedAttendee(0);
        List<String[]> people = List.of(host, guest);
        List<WsClient> oldSockets = new ArrayList<>();
        for (String[] p : people) {
            var t = s.transport(0, p[0], p[1], 0, "first-" + p[1]);
            assertThat(t.status()).as(t.raw()).isEqualTo(200);
            assertThat(sfuOf(p[1])).isEqualTo("sfu-0");
            await().atMost(Duration.ofSeconds(5)).until(() -> s0.held(s.meetingId, p[1]) != null);
            oldSockets.add(connectAndOffer(t));
        }
        assertThat(s0.transportsCreated.get()).isEqualTo(2);

        // phase 1 of a drain: the SFU's registry entry turns DRAINING
        s0.setDraining();
        for (WsClient ws : oldSockets) {
            JsonNode m = ws.await(DrainMigrator.MESSAGE, 10_000);
            assertThat(m.path("reason").asText()).isEqualTo(DrainMigrator.REASON);
            assertThat(m.path("sfu_pod").asText()).isEqualTo("sfu-0");
            assertThat(m.path("transport_generation").asLong()).isEqualTo(1);
        }

        // what the web SDK does on that message: a fresh attempt naming the current generation
        List<WsClient> newSockets = new ArrayList<>();
        for (String[] p : people) {
            var moved = s.transport(0, p[0], p[1], 1, "moved-" + p[1]);
            assertThat(moved.status()).as(moved.raw()).isEqualTo(200);
            assertThat(moved.body().path("transport_generation").asLong()).isEqualTo(2);
            assertThat(sfuOf(p[1])).isEqualTo("sfu-1");
            newSockets.add(connectAndOffer(moved));
        }
        assertThat(h.scalar("SELECT sfu_pod FROM meetings WHERE meeting_id = '" + s.meetingId + "'")).isEqualTo("sfu-1");
        assertThat(s1.transportsCreated.get()).isEqualTo(2);

        // the draining SFU is told to let go of both, so its transport count can reach zero
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(s0.removed)
                .contains(s.meetingId + "/" + host[1], s.meetingId + "/" + guest[1]));
        assertThat(s1.removed).isEmpty();
        assertThat(s1.held(s.meetingId, guest[1])).isNotNull();

        // sockets on the ACTIVE SFU are not asked to move
        for (WsClient ws : newSockets) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
            while (System.nanoTime() < deadline) {
                JsonNode n = ws.received.poll(100, TimeUnit.MILLISECONDS);
                if (n != null) {
                    assertThat(n.path("type").asText()).isNotEqualTo(DrainMigrator.MESSAGE);
                }
            }
        }
        String metrics = h.call(h.base(0), "GET", "/prometheus", null, null, null, null).raw();
        assertThat(metrics).contains("parley_sfu_drain_migration_requests_total", "parley_sfu_participants_released_total");
        for (WsClient ws : oldSockets) {
            ws.close();
        }
        for (WsClient ws : newSockets) {
            ws.close();
        }
    }
}
