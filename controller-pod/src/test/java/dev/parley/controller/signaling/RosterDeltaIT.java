package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.WsClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Joins and departures reach live sockets as {@code roster_delta} messages (one per meeting and 100 ms window)
 * that keep the control cursor: every socket sees an unbroken chain of cursors, fewer messages than events, the
 * same text for the same range on every socket, and ends with the meeting's real roster.
 */
class RosterDeltaIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, Map.of(), "controller-0");

    /** A new attendee joins (no waiting room); a 503 (a loaded machine: lease in doubt) is retried as a client would. */
    private static String join(Scenario s) throws InterruptedException {
        String token = ControllerHarness.token(s.tenant, java.util.UUID.randomUUID());
        java.util.UUID device = java.util.UUID.randomUUID();
        for (int attempt = 0; ; attempt++) {
            var r = s.join(0, token, device);
            if (r.status() == 503 && attempt < 10) {
                Thread.sleep(500);
                continue;
            }
            assertThat(r.status()).as(r.raw()).isEqualTo(201);
            assertThat(r.text("admission_state")).isEqualTo("admitted");
            return r.text("participant_id");
        }
    }

    @Test
    void aBurstOfJoinsAndLeavesIsCoalescedWithoutBreakingTheCursor() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        List<String[]> leavers = new ArrayList<>();
        List<WsClient> leaverSockets = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String[] who = s.admittedAttendee(0);
            leavers.add(who);
            leaverSockets.add(s.joinedSocket(who, "l-" + i));
        }
        List<WsClient> watchers = new ArrayList<>();
        List<String> cursors = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String[] who = s.admittedAttendee(0);
            var t = s.transport(0, who[0], who[1], 0, "w-" + i);
            WsClient ws = new WsClient(t.text("signaling_endpoint"));
            ws.send("{\"type\":\"join\",\"connect_ticket\":\"" + t.text("connect_ticket") + "\"}");
            cursors.add(ws.await("joined", 20_000).get("cursor").asText());
            watchers.add(ws);
        }
        // the watchers' own joins are behind them: start from the last watcher's cursor for everyone
        Thread.sleep(500);
        for (WsClient w : watchers) {
            w.received.clear();
        }
        String start = h.scalar("SELECT controller_epoch || '.' || control_seq FROM meetings WHERE meeting_id = '"
                + s.meetingId + "'");

        Set<String> joiners = new LinkedHashSet<>();
        try (ExecutorService ex = Executors.newFixedThreadPool(6)) {
            List<Future<String>> all = new ArrayList<>();
            for (int i = 0; i < 24; i++) {
                all.add(ex.submit(() -> join(s)));
            }
            for (WsClient l : leaverSockets) {
                l.send("{\"type\":\"leave\"}");
            }
            for (Future<String> f : all) {
                joiners.add(f.get());
            }
        }
        long epoch = Long.parseLong(start.substring(0, start.indexOf('.')));
        // every leave committed, then the head every socket must reach
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).until(() -> h.count(
                "SELECT count(*) FROM meeting_participants WHERE meeting_id = '" + s.meetingId + "' AND admission_state = 'left'") == 3);
        long head = h.count("SELECT control_seq FROM meetings WHERE meeting_id = '" + s.meetingId + "'");
        long startSeq = Long.parseLong(start.substring(start.indexOf('.') + 1));
        assertThat(head - startSeq).as("events in the burst").isGreaterThanOrEqualTo(27);

        Map<String, String> deltaByRange = new HashMap<>();
        for (WsClient w : watchers) {
            long seq = startSeq;
            int messages = 0;
            int deltas = 0;
            Set<String> roster = new LinkedHashSet<>();
            while (seq < head) {
                JsonNode m = w.received.poll(10, TimeUnit.SECONDS);
                assertThat(m).as("reached %d of %d", seq, head).isNotNull();
                String type = m.path("type").asText();
                if ("roster_delta".equals(type)) {
                    assertThat(m.path("after").asText()).as("a delta starts where the socket is").isEqualTo(epoch + "." + seq);
                    String range = m.path("after").asText() + "-" + m.path("cursor").asText();
                    String before = deltaByRange.putIfAbsent(range, m.toString());
                    assertThat(before == null ? m.toString() : before).as("same range, same text").isEqualTo(m.toString());
                    for (JsonNode ch : m.path("changes")) {
                        if ("remove".equals(ch.path("op").asText())) {
                            roster.remove(ch.path("participant_id").asText());
                        } else {
                            roster.add(ch.path("participant_id").asText());
                        }
                    }
                    seq = Long.parseLong(m.path("cursor").asText().substring(m.path("cursor").asText().indexOf('.') + 1));
                    deltas++;
                    messages++;
                } else if ("event".equals(type) && m.has("cursor")) {
                    String c = m.path("cursor").asText();
                    assertThat(c).as("events in order, none missing").isEqualTo(epoch + "." + (seq + 1));
                    String et = m.path("event").path("type").asText();
                    String pid = m.path("event").path("participant_id").asText();
                    if ("participant_joined".equals(et)) {
                        roster.add(pid);
                    } else if ("participant_left".equals(et)) {
                        roster.remove(pid);
                    }
                    seq++;
                    messages++;
                }
            }
            assertThat(deltas).as("joins were coalesced").isPositive();
            assertThat(messages).as("fewer messages than events").isLessThan((int) (head - startSeq));
            assertThat(roster).as("the joiners, the leavers gone").containsExactlyInAnyOrderElementsOf(joiners);
            assertThat(roster).doesNotContainAnyElementsOf(leavers.stream().map(l -> l[1]).toList());
        }
        assertThat(deltaByRange).isNotEmpty();
        for (WsClient w : watchers) {
            w.close();
        }
    }
}
