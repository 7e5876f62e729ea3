package dev.parley.controller.fanout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.ownership.Ownership;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.WsClient;
import dev.parley.platform.etcd.EtcdKeys;
import io.etcd.jetcd.options.PutOption;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two controller processes on one PostgreSQL and one etcd. Controller A (index 0) owns the meetings; sockets on
 * controller B (index 1) are accepted there and get the committed control events through the relay leader's
 * cross-pod fan-out: in order, each once, gaps filled from the control log, duplicates dropped, an epoch change
 * answered with snapshot_required; the receiving endpoint wants the internal secret.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CrossPodFanoutIT {
    static final Map<String, String> ENV = Map.of("PARLEY_RECONNECT_GRACE_MILLIS", "2000");
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, ENV, "controller-a", "controller-b");
    static final String RELAY_LEADER_KEY = EtcdKeys.ROOT + "/outbox-relay/leader";

    record Ev(String id, String cursor, String type) {
    }

    private static String endpoint(int pod) {
        return h.configs.get(pod).signalingEndpoint();
    }

    /** A meeting owned by A with an admitted attendee whose socket is joined on {@code pod}; [token, pid, cursor]. */
    private static String[] joinedOn(Scenario s, int pod, WsClient[] out) throws Exception {
        String[] who = s.admittedAttendee(0);
        var t = s.transport(0, who[0], who[1], 0, "t-" + who[1]);
        assertThat(t.status()).as(t.raw()).isEqualTo(200);
        WsClient ws = new WsClient(endpoint(pod));
        ws.send("{\"type\":\"join\",\"connect_ticket\":\"" + t.text("connect_ticket") + "\"}");
        JsonNode joined = ws.await("joined", 20_000);
        out[0] = ws;
        return new String[]{who[0], who[1], joined.get("cursor").asText()};
    }

    private static long epochOf(String cursor) {
        return Long.parseLong(cursor.substring(0, cursor.indexOf('.')));
    }

    private static long seqOf(String cursor) {
        return Long.parseLong(cursor.substring(cursor.indexOf('.') + 1));
    }

    /** Event ids after a cursor that {@code viewer} may see, in seq order (from the control log). */
    private static List<String> visibleAfter(String m, String cursor, String viewer) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = h.db(); PreparedStatement ps = c.prepareStatement("SELECT event_id FROM control_events "
                + "WHERE meeting_id = ?::uuid AND controller_epoch = ? AND seq > ? AND (audience_participant_id IS NULL "
                + "OR audience_participant_id = ?::uuid) ORDER BY seq")) {
            ps.setString(1, m);
            ps.setLong(2, epochOf(cursor));
            ps.setLong(3, seqOf(cursor));
            ps.setString(4, viewer);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    /** A fan-out batch as the relay sends it: every event after the cursor (all audiences), head = the last seq. */
    private static ObjectNode batchAfter(String m, String cursor, boolean onlyLast) throws Exception {
        ObjectNode root = ControllerHarness.JSON.createObjectNode();
        ObjectNode entry = root.putArray("meetings").addObject();
        entry.put("meeting_id", m);
        entry.put("epoch", epochOf(cursor));
        ArrayNode evs = entry.putArray("events");
        long head = seqOf(cursor);
        try (Connection c = h.db(); PreparedStatement ps = c.prepareStatement("SELECT seq, event_id, event_type, "
                + "payload::text, audience_participant_id FROM control_events WHERE meeting_id = ?::uuid "
                + "AND controller_epoch = ? AND seq > ? ORDER BY seq")) {
            ps.setString(1, m);
            ps.setLong(2, epochOf(cursor));
            ps.setLong(3, seqOf(cursor));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    head = rs.getLong(1);
                    if (onlyLast) {
                        evs.removeAll();
                    }
                    ObjectNode e = evs.addObject();
                    e.put("seq", rs.getLong(1));
                    e.put("event_id", rs.getString(2));
                    e.put("type", rs.getString(3));
                    e.set("payload", ControllerHarness.JSON.readTree(rs.getString(4)));
                    if (rs.getString(5) != null) {
                        e.put("audience", rs.getString(5));
                    }
                }
            }
        }
        entry.put("seq", head);
        return root;
    }

    /** The receiver's answer: the meetings it has sockets of without owning them (what it wants sent). */
    private static List<String> interestOf(int pod, ObjectNode batch) throws Exception {
        var r = h.call(h.base(pod), "POST", ControlEventsController.PATH, ControllerHarness.INTERNAL_SECRET, null,
                batch.toString(), "application/json");
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        List<String> out = new ArrayList<>();
        r.body().get("interest").forEach(n -> out.add(n.asText()));
        return out;
    }

    private static int postBatch(int pod, ObjectNode batch, String authorization) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(h.base(pod) + ControlEventsController.PATH))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(batch.toString()));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return h.http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static String internal() {
        return "Bearer " + ControllerHarness.INTERNAL_SECRET;
    }

    /** Reliable events from the socket until {@code n} arrived (AssertionError on timeout); other messages skipped. */
    private static List<Ev> events(WsClient ws, int n, long millis) throws InterruptedException {
        List<Ev> out = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (out.size() < n) {
            JsonNode msg = ws.received.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (msg == null) {
                throw new AssertionError("only " + out.size() + " of " + n + " events: " + out);
            }
            if ("event".equals(msg.path("type").asText()) && !msg.path("event").path("volatile").asBoolean()) {
                out.add(new Ev(msg.get("event").get("event_id").asText(), msg.get("cursor").asText(),
                        msg.get("event").get("type").asText()));
            }
        }
        return out;
    }

    /** No reliable event (and no snapshot_required) arrives for {@code millis}. */
    private static void quiet(WsClient ws, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            JsonNode msg = ws.received.poll(left, TimeUnit.NANOSECONDS);
            if (msg == null) {
                return;
            }
            boolean reliable = "event".equals(msg.path("type").asText()) && !msg.path("event").path("volatile").asBoolean();
            assertThat(reliable || "snapshot_required".equals(msg.path("type").asText()))
                    .as("unexpected message %s", msg).isFalse();
        }
    }

    private static List<String> ids(List<Ev> evs) {
        return evs.stream().map(Ev::id).toList();
    }

    private static void assertAscending(String after, List<Ev> evs) {
        long prev = seqOf(after);
        for (Ev e : evs) {
            assertThat(epochOf(e.cursor())).isEqualTo(epochOf(after));
            assertThat(seqOf(e.cursor())).isGreaterThan(prev);
            prev = seqOf(e.cursor());
        }
    }

    /** Three commands on the owner; waits until their asynchronous command_applied events are in the log too. */
    private static void threeCommands(Scenario s, String pid) throws Exception {
        assertThat(s.command(0, "{\"type\":\"set_publish\",\"participant_id\":\"" + pid + "\",\"screen\":true}").status()).isEqualTo(201);
        assertThat(s.command(0, "{\"type\":\"request_unmute\",\"participant_id\":\"" + pid + "\"}").status()).isEqualTo(201);
        assertThat(s.command(0, "{\"type\":\"lock_meeting\",\"locked\":true}").status()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(6)).until(() -> h.count("SELECT count(*) FROM commands WHERE meeting_id = '"
                + s.meetingId + "' AND media_enforcement = 'pending'") == 0);
    }

    @Test
    @Order(1)
    void aSocketOnTheNonOwnerGetsTheOwnersEventsInOrderOnceWithCursors() throws Exception {
        Scenario s = new Scenario(h).meeting(false, 0);
        UUID m = UUID.fromString(s.meetingId);
        WsClient[] ws = new WsClient[1];
        String[] a = joinedOn(s, 1, ws);
        try (WsClient onB = ws[0]) {
            Long epochA = h.controllers.get(0).getBean(Ownership.class).epochIfOwned(m);
            assertThat(epochA).isNotNull();
            assertThat(h.controllers.get(1).getBean(Ownership.class).epochIfOwned(m)).isNull();
            assertThat(epochOf(a[2])).isEqualTo(epochA);

            threeCommands(s, a[1]);
            List<String> expected = visibleAfter(s.meetingId, a[2], a[1]);
            assertThat(expected).hasSizeGreaterThanOrEqualTo(4);
            List<Ev> got = events(onB, expected.size(), 10_000);
            assertThat(ids(got)).containsExactlyElementsOf(expected);
            assertAscending(a[2], got);
            quiet(onB, 800);

            // pings work on the non-owner socket
            onB.send("{\"type\":\"ping\"}");
            onB.await("pong", 5_000);

            // the meeting ends on the owner: the socket on B gets every last event, then is closed
            String last = got.get(got.size() - 1).cursor();
            assertThat(s.command(0, "{\"type\":\"end_meeting\"}").status()).isEqualTo(201);
            await().atMost(Duration.ofSeconds(10)).until(onB::isClosed);
            List<String> finalEvents = visibleAfter(s.meetingId, last, a[1]);
            assertThat(finalEvents).isNotEmpty();
            List<Ev> gotFinal = new ArrayList<>();
            for (JsonNode msg : onB.received) {
                if ("event".equals(msg.path("type").asText()) && !msg.path("event").path("volatile").asBoolean()) {
                    gotFinal.add(new Ev(msg.get("event").get("event_id").asText(), msg.get("cursor").asText(),
                            msg.get("event").get("type").asText()));
                }
            }
            assertThat(ids(gotFinal)).containsExactlyElementsOf(finalEvents);
            assertThat(gotFinal.stream().map(Ev::type)).contains("meeting_ended");
        }
    }

    @Test
    @Order(2)
    void aMissedBatchIsFilledFromTheLogAndDuplicatesAreDroppedOnEveryPod() throws Exception {
        Scenario s = new Scenario(h).meeting(false, 0);
        WsClient[] b = new WsClient[1];
        WsClient[] o = new WsClient[1];
        String[] onBWho = joinedOn(s, 1, b);
        String[] onAWho = joinedOn(s, 0, o); // a socket on the owner: gets the events directly
        long lease = h.etcdClient.getLeaseClient().grant(60).get(5, TimeUnit.SECONDS).getID();
        try (WsClient onB = b[0]; WsClient onA = o[0]) {
            // B's socket first sees the second attendee's join (fanned out)
            List<String> joinOfA = visibleAfter(s.meetingId, onBWho[2], onBWho[1]);
            List<Ev> seen = events(onB, joinOfA.size(), 10_000);
            assertThat(ids(seen)).containsExactlyElementsOf(joinOfA);
            String cursorB = seen.get(seen.size() - 1).cursor();
            // no relay leader among the controllers: nothing is fanned out while the test holds the key
            h.etcdClient.getKVClient().put(EtcdKeys.bytes(RELAY_LEADER_KEY), EtcdKeys.bytes("test"),
                    PutOption.builder().withLeaseId(lease).build()).get(5, TimeUnit.SECONDS);
            Thread.sleep(700);
            threeCommands(s, onBWho[1]);
            List<String> expectedB = visibleAfter(s.meetingId, cursorB, onBWho[1]);
            List<String> expectedA = visibleAfter(s.meetingId, onAWho[2], onAWho[1]);
            // the owner's socket got its events directly; B's socket got none (the fan-out batch was "lost")
            List<Ev> gotA = events(onA, expectedA.size(), 10_000);
            assertThat(ids(gotA)).containsExactlyElementsOf(expectedA);
            quiet(onB, 800);

            // (c) a batch carrying only the newest event: the receiver sees the gap and reads the rest from the log
            assertThat(postBatch(1, batchAfter(s.meetingId, cursorB, true), internal())).isEqualTo(200);
            List<Ev> gotB = events(onB, expectedB.size(), 10_000);
            assertThat(ids(gotB)).containsExactlyElementsOf(expectedB);
            assertAscending(cursorB, gotB);

            // (b) the whole batch twice more, to B and to the owner: nothing is delivered twice
            ObjectNode full = batchAfter(s.meetingId, cursorB, false);
            assertThat(interestOf(1, full)).contains(s.meetingId); // B has a socket of it without owning it
            assertThat(postBatch(1, full, internal())).isEqualTo(200);
            assertThat(interestOf(0, full)).doesNotContain(s.meetingId); // the owner delivers to its own sockets
            quiet(onB, 800);
            quiet(onA, 100);

            // the relay gets its leader back (a new leader first re-sends every head): still nothing twice,
            // and the next command reaches both sockets once
            h.etcdClient.getLeaseClient().revoke(lease).get(5, TimeUnit.SECONDS);
            quiet(onB, 1000);
            quiet(onA, 100);
            String lastB = gotB.get(gotB.size() - 1).cursor();
            String lastA = gotA.get(gotA.size() - 1).cursor();
            assertThat(s.command(0, "{\"type\":\"lock_meeting\",\"locked\":false}").status()).isEqualTo(201);
            await().atMost(Duration.ofSeconds(6)).until(() -> h.count("SELECT count(*) FROM commands WHERE meeting_id = '"
                    + s.meetingId + "' AND media_enforcement = 'pending'") == 0);
            List<String> nextB = visibleAfter(s.meetingId, lastB, onBWho[1]);
            List<String> nextA = visibleAfter(s.meetingId, lastA, onAWho[1]);
            assertThat(nextB).isNotEmpty().isEqualTo(nextA);
            assertThat(ids(events(onB, nextB.size(), 10_000))).containsExactlyElementsOf(nextB);
            assertThat(ids(events(onA, nextA.size(), 10_000))).containsExactlyElementsOf(nextA);
            quiet(onB, 800);
            quiet(onA, 100);
        }
    }

    @Test
    @Order(3)
    void theEndpointRefusesCallersWithoutTheInternalSecret() throws Exception {
        Scenario s = new Scenario(h).meeting(false, 0);
        WsClient[] b = new WsClient[1];
        String[] who = joinedOn(s, 1, b);
        try (WsClient onB = b[0]) {
            quiet(onB, 500);
            // a batch that B's socket would take (the next seq, so no log read): refused, nothing delivered
            ObjectNode batch = ControllerHarness.JSON.createObjectNode();
            ObjectNode entry = batch.putArray("meetings").addObject();
            entry.put("meeting_id", s.meetingId);
            entry.put("epoch", epochOf(who[2]));
            entry.put("seq", seqOf(who[2]) + 1);
            ObjectNode e = entry.putArray("events").addObject();
            e.put("seq", seqOf(who[2]) + 1);
            e.put("event_id", UUID.randomUUID().toString());
            e.put("type", "meeting_locked");
            e.putObject("payload").put("locked", true);
            assertThat(postBatch(1, batch, null)).isEqualTo(401);
            assertThat(postBatch(1, batch, "Bearer not-the-internal-secret-0000")).isEqualTo(401);
            assertThat(postBatch(1, batch, "Bearer " + ControllerHarness.JWT_SECRET)).isEqualTo(401);
            quiet(onB, 800);
        }
    }

    private static void sfuEventAtOwner(String body) {
        var r = h.call(0, "POST", "/internal/v1/sfu-events", ControllerHarness.INTERNAL_SECRET, null, body);
        assertThat(r.status()).as(r.raw()).isEqualTo(204);
    }

    /** The next volatile event on the socket (others skipped). */
    private static JsonNode nextVolatile(WsClient ws) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            JsonNode n = ws.received.poll(500, TimeUnit.MILLISECONDS);
            if (n != null && "event".equals(n.path("type").asText()) && n.path("event").path("volatile").asBoolean()) {
                return n.get("event");
            }
        }
        throw new AssertionError("no volatile event");
    }

    @Test
    @Order(4)
    void aNonOwnerSocketRelaysOffersGetsVolatileHintsAndKeepsLeaveAndTheGrace() throws Exception {
        Scenario s = new Scenario(h).meeting(false, 0);
        WsClient[] g = new WsClient[1];
        WsClient[] r = new WsClient[1];
        WsClient[] l = new WsClient[1];
        String[] gone = joinedOn(s, 1, g);
        String[] back = joinedOn(s, 1, r);
        String[] leaving = joinedOn(s, 1, l);
        // leave on the non-owner: the owner records it at once
        l[0].send("{\"type\":\"leave\"}");
        l[0].await("left", 10_000);
        assertThat(h.scalar("SELECT admission_state FROM meeting_participants WHERE participant_id = '" + leaving[1] + "'"))
                .isEqualTo("left");
        // offers and subscriptions are relayed to the owner, which talks to the SFU; replies come back here
        int created = h.sfus.get(0).transportsCreated.get();
        r[0].send("{\"type\":\"offer\",\"transport\":\"sideways\",\"sdp\":\"v=0\"}");
        assertThat(r[0].await("error", 10_000).get("code").asText()).isEqualTo("invalid_transport");
        r[0].send("{\"type\":\"offer\",\"transport\":\"publish\",\"sdp\":\"v=0\\r\\n\"}");
        JsonNode answer = r[0].await("answer", 10_000);
        assertThat(answer.get("sdp").asText()).contains("test-double");
        assertThat(h.sfus.get(0).transportsCreated.get()).isEqualTo(created + 1);
        r[0].send("{\"type\":\"subscribe\",\"tracks\":[{\"track_id\":\"x:1\",\"max_width\":640,\"max_height\":360}]}");
        r[0].await("subscribed", 10_000);
        // SFU hints reach the owner and follow the meeting's sockets to this pod (targeted ones only to their participant)
        sfuEventAtOwner("{\"type\":\"publisher_layers\",\"meeting_id\":\"" + s.meetingId + "\",\"participant_id\":\"" + back[1]
                + "\",\"transport_generation\":1,\"sfu\":\"sfu-0\",\"data\":{\"track_id\":\"" + back[1] + ":1\"}}");
        sfuEventAtOwner("{\"type\":\"active_speakers\",\"meeting_id\":\"" + s.meetingId + "\",\"data\":{\"sequence\":3,\"speakers\":[\""
                + back[1] + "\"]}}");
        assertThat(nextVolatile(r[0]).get("type").asText()).isEqualTo("publisher_layers");
        assertThat(nextVolatile(r[0]).get("type").asText()).isEqualTo("active_speakers");
        assertThat(nextVolatile(g[0]).get("type").asText()).isEqualTo("active_speakers");

        // a second socket of the same participant on B: while it lives, losing the first is not "reconnecting"
        var second = s.transport(0, back[0], back[1], 0, "t-" + back[1]);
        assertThat(second.status()).as(second.raw()).isEqualTo(200);
        WsClient r2 = new WsClient(endpoint(1));
        r2.send("{\"type\":\"join\",\"connect_ticket\":\"" + second.text("connect_ticket") + "\"}");
        r2.await("joined", 20_000);
        g[0].abort();
        r[0].abort();
        await().atMost(Duration.ofSeconds(8)).until(() ->
                "left".equals(h.scalar("SELECT admission_state FROM meeting_participants WHERE participant_id = '" + gone[1] + "'")));
        assertThat(h.scalar("SELECT payload->>'reason' FROM control_events WHERE meeting_id = '" + s.meetingId
                + "' AND event_type = 'participant_left' AND payload->>'participant_id' = '" + gone[1] + "'"))
                .isEqualTo("reconnect_timeout");
        Thread.sleep(1000); // the grace (2 s) has run out for anything started with gone's
        assertThat(h.scalar("SELECT admission_state FROM meeting_participants WHERE participant_id = '" + back[1] + "'"))
                .isEqualTo("admitted");
        // now its last socket on B goes too, and it comes back (on B again) within the grace
        r2.abort();
        Thread.sleep(500);
        var again = s.transport(0, back[0], back[1], 0, "t-" + back[1]);
        assertThat(again.status()).as(again.raw()).isEqualTo(200);
        try (WsClient resumed = new WsClient(endpoint(1))) {
            resumed.send("{\"type\":\"resume\",\"connect_ticket\":\"" + again.text("connect_ticket")
                    + "\",\"resume_after\":\"" + back[2] + "\"}");
            resumed.await("joined", 20_000);
            Thread.sleep(2500); // longer than the grace
            assertThat(h.scalar("SELECT admission_state FROM meeting_participants WHERE participant_id = '" + back[1] + "'"))
                    .isEqualTo("admitted");
        }
    }

    @Test
    @Order(5)
    void afterAnOwnerChangeTheNonOwnerSocketIsToldToTakeASnapshotAndResumesOnTheNewEpoch() throws Exception {
        Scenario s = new Scenario(h).meeting(false, 0);
        WsClient[] b = new WsClient[1];
        String[] who = joinedOn(s, 1, b);
        try (WsClient onB = b[0]) {
            h.stopController(0); // its lease is revoked: the meeting has no owner
            // a command through B: B takes the meeting over with a higher epoch
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).until(() ->
                    s.command(1, "{\"type\":\"lock_meeting\",\"locked\":true}").status() == 201);
            long epochB = h.controllers.get(1).getBean(Ownership.class).epochIfOwned(UUID.fromString(s.meetingId));
            assertThat(epochB).isGreaterThan(epochOf(who[2]));
            JsonNode snap = onB.await("snapshot_required", 10_000);
            assertThat(snap.get("reason").asText()).contains("epoch");
            quiet(onB, 800); // once, not once per event

            // the client resumes with its old cursor: snapshot_required, then joined at the new epoch, then events
            var t = s.transport(1, who[0], who[1], 0, "t-" + who[1]);
            assertThat(t.status()).as(t.raw()).isEqualTo(200);
            try (WsClient resumed = new WsClient(endpoint(1))) {
                resumed.send("{\"type\":\"resume\",\"connect_ticket\":\"" + t.text("connect_ticket")
                        + "\",\"resume_after\":\"" + who[2] + "\"}");
                resumed.await("snapshot_required", 10_000);
                String cursor = resumed.await("joined", 10_000).get("cursor").asText();
                assertThat(epochOf(cursor)).isEqualTo(epochB);
                assertThat(s.command(1, "{\"type\":\"lock_meeting\",\"locked\":false}").status()).isEqualTo(201);
                await().atMost(Duration.ofSeconds(6)).until(() -> h.count("SELECT count(*) FROM commands WHERE meeting_id = '"
                        + s.meetingId + "' AND media_enforcement = 'pending'") == 0);
                List<String> expected = visibleAfter(s.meetingId, cursor, who[1]);
                List<Ev> got = events(resumed, expected.size(), 10_000);
                assertThat(ids(got)).containsExactlyElementsOf(expected);
                assertAscending(cursor, got);
                quiet(resumed, 500);
            }
        }
    }
}
