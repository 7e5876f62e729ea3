package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.WsClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The paged roster on the real controller (PostgreSQL, etcd): a paged socket gets, for a burst of joins and
 * departures, only {@code roster_summary} messages carrying the changes of the participants it watches (its page,
 * itself, the host) and the meeting's counts, with an unbroken cursor chain; a full-roster socket of the same
 * meeting still gets every join and departure; a meeting past its {@code roster_page_above} pages its sockets by
 * itself; a bad {@code roster_page} is answered with an error and the socket carries on; a paged socket that
 * resumes from an older cursor catches up without a gap.
 */
class PagedRosterIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, Map.of(), "controller-0");

    /** A new attendee joins (no waiting room); a 503 (a loaded machine: lease in doubt) is retried as a client would. */
    private static String[] join(Scenario s) throws InterruptedException {
        String token = ControllerHarness.token(s.tenant, UUID.randomUUID());
        for (int attempt = 0; ; attempt++) {
            var r = s.join(0, token, UUID.randomUUID());
            if (r.status() == 503 && attempt < 10) {
                Thread.sleep(500);
                continue;
            }
            assertThat(r.status()).as(r.raw()).isEqualTo(201);
            return new String[]{token, r.text("participant_id")};
        }
    }

    private static long seq(String cursor) {
        return Long.parseLong(cursor.substring(cursor.indexOf('.') + 1));
    }

    /** What one socket saw from {@code startSeq} up to {@code head}, checked to be one unbroken cursor chain. */
    private record Seen(List<JsonNode> messages, Set<String> roster, int bytes, JsonNode lastSummary) {
    }

    private static Seen follow(WsClient w, long epoch, long startSeq, long head, Set<String> initial) throws Exception {
        long seq = startSeq;
        List<JsonNode> messages = new ArrayList<>();
        Set<String> roster = new LinkedHashSet<>(initial);
        int bytes = 0;
        JsonNode lastSummary = null;
        while (seq < head) {
            JsonNode m = w.received.poll(10, TimeUnit.SECONDS);
            assertThat(m).as("reached %d of %d", seq, head).isNotNull();
            String type = m.path("type").asText();
            if (!m.has("cursor") || "joined".equals(type)) {
                continue; // pongs, volatile events, counts-only summaries
            }
            messages.add(m);
            bytes += m.toString().length();
            if ("roster_delta".equals(type) || "roster_summary".equals(type)) {
                long after = seq(m.path("after").asText());
                assertThat(m.path("after").asText()).startsWith(epoch + ".");
                assertThat(after).as("a range starts at or before the socket's cursor (%s)", m).isLessThanOrEqualTo(seq);
                assertThat(seq(m.path("cursor").asText())).as("and ends after it").isGreaterThan(seq);
                for (JsonNode ch : m.path("changes")) {
                    if ("remove".equals(ch.path("op").asText())) {
                        roster.remove(ch.path("participant_id").asText());
                    } else {
                        roster.add(ch.path("participant_id").asText());
                    }
                }
                if ("roster_summary".equals(type)) {
                    lastSummary = m;
                }
                seq = seq(m.path("cursor").asText());
            } else if ("event".equals(type)) {
                assertThat(m.path("cursor").asText()).as("events in order, none missing").isEqualTo(epoch + "." + (seq + 1));
                String et = m.path("event").path("type").asText();
                String pid = m.path("event").path("participant_id").asText();
                if ("participant_joined".equals(et)) {
                    roster.add(pid);
                } else if ("participant_left".equals(et)) {
                    roster.remove(pid);
                }
                seq++;
            }
        }
        return new Seen(messages, roster, bytes, lastSummary);
    }

    @Test
    void aPagedSocketGetsItsPageAndSummariesWhileAFullSocketGetsEverything() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        String[] watchedLeaver = s.admittedAttendee(0);
        WsClient watchedSocket = s.joinedSocket(watchedLeaver, "wl");
        String[] unwatchedLeaver = s.admittedAttendee(0);
        WsClient unwatchedSocket = s.joinedSocket(unwatchedLeaver, "ul");
        String[] pagedWho = s.admittedAttendee(0);
        WsClient paged = s.joinedSocket(pagedWho, "paged");
        WsClient full = s.joinedSocket(s.admittedAttendee(0), "full");
        paged.send("{\"type\":\"roster_page\",\"participant_ids\":[\"" + watchedLeaver[1] + "\"]}");
        JsonNode counts = paged.await("roster_summary", 10_000);
        assertThat(counts.has("cursor")).as("the answer to roster_page is counts only").isFalse();
        assertThat(counts.path("count").asInt()).as("host + 4 attendees").isEqualTo(5);
        assertThat(counts.path("by_role").path("host").asInt()).isEqualTo(1);
        Thread.sleep(500);
        paged.received.clear();
        full.received.clear();
        String start = h.scalar("SELECT controller_epoch || '.' || control_seq FROM meetings WHERE meeting_id = '"
                + s.meetingId + "'");
        long epoch = Long.parseLong(start.substring(0, start.indexOf('.')));

        Set<String> joiners = new LinkedHashSet<>();
        try (ExecutorService ex = Executors.newFixedThreadPool(6)) {
            List<Future<String[]>> all = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                all.add(ex.submit(() -> join(s)));
            }
            watchedSocket.send("{\"type\":\"leave\"}");
            unwatchedSocket.send("{\"type\":\"leave\"}");
            for (Future<String[]> f : all) {
                joiners.add(f.get()[1]);
            }
        }
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).until(() -> h.count(
                "SELECT count(*) FROM meeting_participants WHERE meeting_id = '" + s.meetingId + "' AND admission_state = 'left'") == 2);
        long head = h.count("SELECT control_seq FROM meetings WHERE meeting_id = '" + s.meetingId + "'");
        long startSeq = seq(start);
        assertThat(head - startSeq).as("events in the burst").isGreaterThanOrEqualTo(18);

        Seen f = follow(full, epoch, startSeq, head, Set.of(watchedLeaver[1], unwatchedLeaver[1]));
        assertThat(f.roster()).as("the full socket sees every joiner, the leavers gone").containsExactlyInAnyOrderElementsOf(joiners);
        assertThat(f.messages()).noneMatch(m -> "roster_summary".equals(m.path("type").asText()));

        Seen p = follow(paged, epoch, startSeq, head, Set.of(watchedLeaver[1]));
        Set<String> mayAppear = Set.of(watchedLeaver[1], pagedWho[1], s.hostPid);
        Set<String> named = new HashSet<>();
        for (JsonNode m : p.messages()) {
            m.path("changes").forEach(ch -> named.add(ch.path("participant_id").asText()));
            if ("event".equals(m.path("type").asText()) && m.path("event").has("participant_id")) {
                named.add(m.path("event").path("participant_id").asText());
            }
            assertThat(m.path("type").asText()).as("no roster_delta on a paged socket").isNotEqualTo("roster_delta");
        }
        assertThat(named).as("joins and departures only of the watched participant").containsExactly(watchedLeaver[1]);
        assertThat(p.messages().stream().filter(m -> "roster_summary".equals(m.path("type").asText())).count())
                .as("summaries").isPositive();
        assertThat(p.roster()).as("its page: the watched participant left").isEmpty();
        long admitted = h.count("SELECT count(*) FROM meeting_participants WHERE meeting_id = '" + s.meetingId
                + "' AND admission_state = 'admitted'");
        assertThat(p.lastSummary().path("count").asLong()).as("the last summary counts (about) the meeting")
                .isBetween(admitted - 2, admitted);
        paged.send("{\"type\":\"roster_page\",\"participant_ids\":[]}");
        assertThat(paged.await("roster_summary", 10_000).path("count").asLong()).as("the tally is exact").isEqualTo(admitted);
        assertThat(p.bytes()).as("paged bytes %d vs full %d", p.bytes(), f.bytes()).isLessThan(f.bytes());

        // a paged socket resuming from the burst's start catches up with summaries, again without a gap
        var t = s.transport(0, pagedWho[0], pagedWho[1], 0, "paged"); // same attempt: a fresh ticket
        paged.close();
        WsClient resumed = new WsClient(t.text("signaling_endpoint"));
        resumed.send("{\"type\":\"resume\",\"connect_ticket\":\"" + t.text("connect_ticket") + "\",\"resume_after\":\""
                + start + "\",\"roster_page\":{\"participant_ids\":[]}}");
        Seen r = follow(resumed, epoch, startSeq, head, Set.of());
        assertThat(r.messages()).as("the replay skips unwatched joins as summary ranges")
                .noneMatch(m -> m.path("event").path("type").asText().equals("participant_joined"));
        for (WsClient w : List.of(full, resumed)) {
            w.close();
        }
    }

    /** Volatile {@code type} hints one socket receives within {@code millis}, by participant (detail). */
    private static List<String> hints(WsClient w, String type, long millis) throws InterruptedException {
        List<String> out = new ArrayList<>();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < deadline) {
            JsonNode n = w.received.poll(100, java.util.concurrent.TimeUnit.MILLISECONDS);
            if (n != null && type.equals(n.path("event").path("type").asText())) {
                out.add(n.path("event").path("detail").asText());
            }
        }
        return out;
    }

    @Test
    void aPagedSocketGetsConnectionHintsOnlyOfThePeopleItWatches() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        String[] watched = s.admittedAttendee(0);
        String[] unwatched = s.admittedAttendee(0);
        String[] pagedWho = s.admittedAttendee(0);
        WsClient paged = s.joinedSocket(pagedWho, "hint-paged");
        WsClient full = s.joinedSocket(s.admittedAttendee(0), "hint-full");
        paged.send("{\"type\":\"roster_page\",\"participant_ids\":[\"" + watched[1] + "\"]}");
        paged.await("roster_summary", 10_000);
        Thread.sleep(300);
        paged.received.clear();
        full.received.clear();
        for (String type : List.of("transport_connected", "transport_closed")) {
            for (String pid : List.of(watched[1], unwatched[1], s.hostPid)) {
                var r = h.call(0, "POST", "/internal/v1/sfu-events", ControllerHarness.INTERNAL_SECRET, null,
                        "{\"type\":\"" + type + "\",\"meeting_id\":\"" + s.meetingId + "\",\"participant_id\":\"" + pid
                                + "\",\"transport_generation\":1,\"sfu\":\"sfu-0\"}");
                assertThat(r.status()).as(r.raw()).isEqualTo(204);
            }
            assertThat(hints(full, type, 1500)).as(type + " to a full-roster socket: everyone's")
                    .containsExactlyInAnyOrder(watched[1], unwatched[1], s.hostPid);
            assertThat(hints(paged, type, 500)).as(type + " to a paged socket: the watched participant's and the host's only")
                    .containsExactlyInAnyOrder(watched[1], s.hostPid);
        }
        paged.close();
        full.close();
    }

    @Test
    void aMeetingPastItsSettingPagesItsSocketsAndBadPagesAreRefused() throws Exception {
        var bad = h.call(0, "POST", "/v1/meetings", new Scenario(h).hostToken, "create-" + UUID.randomUUID(),
                "{\"title\":\"t\",\"waiting_room_enabled\":false,\"encryption_mode\":\"transport\",\"roster_page_above\":0}");
        assertThat(bad.status()).as(bad.raw()).isEqualTo(400);
        assertThat(bad.text("field")).isEqualTo("roster_page_above");

        Scenario s = new Scenario(h).meeting(false, 0, ",\"roster_page_above\":3");
        var m = h.call(0, "GET", "/v1/meetings/" + s.meetingId, s.hostToken, null, null);
        assertThat(m.body().path("roster_page_above").asInt()).isEqualTo(3);
        var t = s.transport(0, s.hostToken, s.hostPid, 0, "host");
        WsClient host = new WsClient(t.text("signaling_endpoint"));
        host.send("{\"type\":\"join\",\"connect_ticket\":\"" + t.text("connect_ticket") + "\"}");
        JsonNode joined = host.await("joined", 20_000);
        assertThat(joined.path("roster").path("paged").asBoolean()).as("1 participant: full roster").isFalse();
        assertThat(joined.path("roster").path("page_above").asInt()).isEqualTo(3);

        for (String badPage : List.of("{\"type\":\"roster_page\"}", "{\"type\":\"roster_page\",\"participant_ids\":[\"x\"]}",
                "{\"type\":\"roster_page\",\"participant_ids\":7}")) {
            host.send(badPage);
            JsonNode e = host.await("error", 10_000);
            assertThat(e.path("code").asText()).as(badPage).isEqualTo("invalid_roster_page");
        }
        host.send("{\"type\":\"ping\"}");
        host.await("pong", 10_000);

        for (int i = 0; i < 2; i++) {
            join(s);
        }
        JsonNode first = host.await("roster_delta", 10_000);
        assertThat(first.path("changes").size()).as("3 admitted: still full").isPositive();
        host.received.clear();
        for (int i = 0; i < 3; i++) {
            join(s);
        }
        JsonNode summary = host.await("roster_summary", 10_000);
        assertThat(summary.path("count").asInt()).as("past 3 the socket is paged").isGreaterThan(3);
        String[] who = join(s);
        var lt = s.transport(0, who[0], who[1], 0, "late");
        WsClient late = new WsClient(lt.text("signaling_endpoint"));
        late.send("{\"type\":\"join\",\"connect_ticket\":\"" + lt.text("connect_ticket") + "\"}");
        assertThat(late.await("joined", 20_000).path("roster").path("paged").asBoolean()).as("joined past 3: paged").isTrue();
        assertThat(h.count("SELECT count(*) FROM meeting_participants WHERE meeting_id = '" + s.meetingId
                + "' AND admission_state = 'admitted'")).isEqualTo(7);
        host.close();
        late.close();
    }

    @Test
    void anEndToEndEncryptedMeetingIsNeverPaged() throws Exception {
        // every member's client must know every other member to send it the keys and rotate them on a departure
        Scenario s = new Scenario(h);
        var created = h.call(0, "POST", "/v1/meetings", s.hostToken, "create-" + UUID.randomUUID(),
                "{\"title\":\"t\",\"waiting_room_enabled\":false,\"encryption_mode\":\"e2ee\",\"roster_page_above\":1}");
        assertThat(created.status()).as(created.raw()).isEqualTo(201);
        s.meetingId = created.text("meeting_id");
        var hostJoin = s.join(0, s.hostToken, UUID.randomUUID());
        assertThat(hostJoin.status()).as(hostJoin.raw()).isEqualTo(201);
        s.hostPid = hostJoin.text("participant_id");
        join(s);
        join(s);
        var t = s.transport(0, s.hostToken, s.hostPid, 0, "host");
        WsClient host = new WsClient(t.text("signaling_endpoint"));
        host.send("{\"type\":\"join\",\"connect_ticket\":\"" + t.text("connect_ticket") + "\",\"roster_page\":{\"participant_ids\":[]}}");
        JsonNode joined = host.await("joined", 20_000);
        assertThat(joined.path("roster").path("paged").asBoolean()).as("3 admitted, above 1, asked for a page: still full").isFalse();
        assertThat(joined.path("roster").path("page_above").isNull()).isTrue();
        host.send("{\"type\":\"roster_page\",\"participant_ids\":[]}");
        assertThat(host.await("error", 10_000).path("code").asText()).isEqualTo("roster_paging_unavailable");
        host.received.clear();
        String[] late = join(s);
        JsonNode delta = host.await("roster_delta", 10_000);
        assertThat(delta.path("changes").findValuesAsText("participant_id")).as("the full roster goes on").contains(late[1]);
        host.close();
    }
}
