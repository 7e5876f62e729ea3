package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.WsClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Resume with a cursor: exact replay inside retention, snapshot_required after an epoch change; grace. */
class ResumeIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, Map.of("PARLEY_RECONNECT_GRACE_MILLIS", "4000"), "controller-0");

    private static List<String> eventIdsAfter(String m, long epoch, long seq, String viewer) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = h.db(); PreparedStatement ps = c.prepareStatement("SELECT event_id FROM control_events "
                + "WHERE meeting_id = ?::uuid AND controller_epoch = ? AND seq > ? AND (audience_participant_id IS NULL "
                + "OR audience_participant_id = ?::uuid) ORDER BY seq")) {
            ps.setString(1, m);
            ps.setLong(2, epoch);
            ps.setLong(3, seq);
            ps.setString(4, viewer);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    @Test
    void resumeReplaysExactlyTheMissedEventsAndEpochChangeRequiresASnapshot() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        String[] a = s.admittedAttendee(0);
        var t = s.transport(0, a[0], a[1], 0, "t-1");
        String cursor;
        try (WsClient ws = new WsClient(t.text("signaling_endpoint"))) {
            ws.send("{\"type\":\"join\",\"connect_ticket\":\"" + t.text("connect_ticket") + "\"}");
            cursor = ws.await("joined", 20_000).get("cursor").asText();
        }
        // three commands while disconnected (one private to a[1], one to another participant)
        String[] other = s.admittedAttendee(0);
        assertThat(s.command(0, "{\"type\":\"set_publish\",\"participant_id\":\"" + a[1] + "\",\"screen\":true}").status()).isEqualTo(201);
        assertThat(s.command(0, "{\"type\":\"request_unmute\",\"participant_id\":\"" + other[1] + "\"}").status()).isEqualTo(201);
        assertThat(s.command(0, "{\"type\":\"request_unmute\",\"participant_id\":\"" + a[1] + "\"}").status()).isEqualTo(201);
        // enforcement of the last command appends command_applied asynchronously: let it land first
        await().atMost(Duration.ofSeconds(6)).until(() -> h.count("SELECT count(*) FROM commands WHERE meeting_id = '"
                + s.meetingId + "' AND media_enforcement = 'pending'") == 0);
        long epoch = Long.parseLong(cursor.substring(0, cursor.indexOf('.')));
        long seq = Long.parseLong(cursor.substring(cursor.indexOf('.') + 1));
        List<String> expected = eventIdsAfter(s.meetingId, epoch, seq, a[1]);
        assertThat(expected).isNotEmpty();

        // the same attempt again: same generation, fresh ticket
        var t2 = s.transport(0, a[0], a[1], 0, "t-1");
        assertThat(t2.body().get("transport_generation").asLong()).isEqualTo(1);
        try (WsClient ws = new WsClient(t2.text("signaling_endpoint"))) {
            ws.send("{\"type\":\"resume\",\"connect_ticket\":\"" + t2.text("connect_ticket") + "\",\"resume_after\":\"" + cursor + "\"}");
            List<String> got = new ArrayList<>();
            List<String> cursors = new ArrayList<>();
            String type;
            do {
                type = nextType(ws, got, cursors);
            } while (!"joined".equals(type));
            assertThat(got).containsExactlyElementsOf(expected);
            for (int i = 1; i < cursors.size(); i++) {
                assertThat(seqOf(cursors.get(i))).isGreaterThan(seqOf(cursors.get(i - 1)));
            }
            // another participant's private event (its unmute request) was not replayed to us
            long all = h.count("SELECT count(*) FROM control_events WHERE meeting_id = '" + s.meetingId
                    + "' AND controller_epoch = " + epoch + " AND seq > " + seq);
            assertThat((long) got.size()).isLessThan(all);
        }

        // epoch change: this controller stops (its lease is revoked), a new one takes over
        h.stopController(0);
        h.startController("controller-1", Map.of("PARLEY_RECONNECT_GRACE_MILLIS", "4000"));
        var t3 = s.transport(1, a[0], a[1], 1, "t-2");
        assertThat(t3.status()).as(t3.raw()).isEqualTo(200);
        assertThat(t3.body().get("controller_epoch").asLong()).isGreaterThan(epoch);
        try (WsClient ws = new WsClient(t3.text("signaling_endpoint"))) {
            ws.send("{\"type\":\"resume\",\"connect_ticket\":\"" + t3.text("connect_ticket") + "\",\"resume_after\":\"" + cursor + "\"}");
            assertThat(ws.await("snapshot_required", 20_000).get("type").asText()).isEqualTo("snapshot_required");
            JsonNode joined = ws.await("joined", 20_000);
            assertThat(joined.get("cursor").asText()).startsWith(t3.body().get("controller_epoch").asText() + ".");
        }
    }

    private static long seqOf(String cursor) {
        return Long.parseLong(cursor.substring(cursor.indexOf('.') + 1));
    }

    /** Reads one message: records events, returns the message type. */
    private static String nextType(WsClient ws, List<String> got, List<String> cursors) throws InterruptedException {
        JsonNode n = ws.received.poll(20, java.util.concurrent.TimeUnit.SECONDS);
        if (n == null) {
            throw new AssertionError("no message");
        }
        if ("event".equals(n.path("type").asText()) && !n.path("event").path("volatile").asBoolean()) {
            got.add(n.get("event").get("event_id").asText());
            cursors.add(n.get("cursor").asText());
        }
        return n.path("type").asText();
    }

    @Test
    void droppedSocketBecomesLeftAfterTheGraceUnlessItComesBack() throws Exception {
        Scenario s = new Scenario(h).meeting(false, h.controllers.size() - 1);
        int c = h.controllers.size() - 1;
        String[] gone = s.admittedAttendee(c);
        String[] back = s.admittedAttendee(c);
        var tg = s.transport(c, gone[0], gone[1], 0, "g");
        var tb = s.transport(c, back[0], back[1], 0, "b");
        WsClient wg = new WsClient(tg.text("signaling_endpoint"));
        wg.send("{\"type\":\"join\",\"connect_ticket\":\"" + tg.text("connect_ticket") + "\"}");
        wg.await("joined", 20_000);
        WsClient wb = new WsClient(tb.text("signaling_endpoint"));
        wb.send("{\"type\":\"join\",\"connect_ticket\":\"" + tb.text("connect_ticket") + "\"}");
        String cur = wb.await("joined", 20_000).get("cursor").asText();
        wg.abort();
        wb.abort();
        Thread.sleep(1000);
        var tb2 = s.transport(c, back[0], back[1], 0, "b");
        assertThat(tb2.status()).as(tb2.raw()).isEqualTo(200);
        try (WsClient again = new WsClient(tb2.text("signaling_endpoint"))) {
            again.send("{\"type\":\"resume\",\"connect_ticket\":\"" + tb2.text("connect_ticket") + "\",\"resume_after\":\"" + cur + "\"}");
            again.await("joined", 20_000);
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    "left".equals(h.scalar("SELECT admission_state FROM meeting_participants WHERE participant_id = '" + gone[1] + "'")));
            // the ghost lost its media rights at the SFU too
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                var held = h.sfus.get(0).held(s.meetingId, gone[1]);
                return held == null || !held.grant().subscribe();
            });
            Thread.sleep(500);
            assertThat(h.scalar("SELECT admission_state FROM meeting_participants WHERE participant_id = '" + back[1] + "'"))
                    .isEqualTo("admitted");
            assertThat(h.sfus.get(0).held(s.meetingId, back[1]).grant().subscribe()).isTrue();
        }
        assertThat(UUID.fromString(gone[1])).isNotNull();
    }
}
