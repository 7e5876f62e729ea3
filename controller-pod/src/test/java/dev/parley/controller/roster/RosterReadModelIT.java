package dev.parley.controller.roster;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.participant.ParticipantRow;
import dev.parley.controller.participant.ParticipantService;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.WsClient;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The roster read model (docs/controller.md "Roster read model") on real PostgreSQL and etcd: the roster page follows
 * join/admit/set_role/remove/deny/end once the projection catches up, re-applied events change nothing, a rebuild gives
 * the same rows as the incremental projection, paging still works, a restarted process resumes from the checkpoints,
 * and a corrupted read model decides nothing (transports, joins, commands and the roster's own access read the tables).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RosterReadModelIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");

    private static final Duration CATCH_UP = Duration.ofSeconds(15);

    /** The controller whose projector is running (the last one started). */
    private static int live() {
        return h.controllers.size() - 1;
    }

    private static RosterProjector projector() {
        return h.controllers.get(live()).getBean(RosterProjector.class);
    }

    private static ControllerHarness.Res join(Scenario s, String token, String name) {
        return h.call(live(), "POST", "/v1/meetings/" + s.meetingId + "/participants", token, "join-" + UUID.randomUUID(),
                "{\"client_instance_id\":\"" + UUID.randomUUID() + "\",\"display_name\":\"" + name + "\"}");
    }

    private static ControllerHarness.Res page(Scenario s, String token, String query) {
        return h.call(live(), "GET", "/v1/meetings/" + s.meetingId + "/participants" + query, token, null, null);
    }

    /** Every roster page (limit {@code limit}) as one list of the items' JSON texts, asserting the paging contract. */
    private static List<String> allPages(Scenario s, int limit) {
        List<String> items = new ArrayList<>();
        String cursor = null;
        String previous = "";
        for (int i = 0; i < 100; i++) {
            var r = page(s, s.hostToken, "?limit=" + limit + (cursor == null ? "" : "&cursor=" + cursor));
            assertThat(r.status()).as(r.raw()).isEqualTo(200);
            JsonNode ps = r.body().get("participants");
            assertThat(ps.size()).isLessThanOrEqualTo(limit);
            for (JsonNode p : ps) {
                String id = p.get("participant_id").asText();
                assertThat(id).as("ordered by participant id").isGreaterThan(previous);
                previous = id;
                items.add(p.toString());
            }
            cursor = r.body().path("next_cursor").asText(null);
            if (cursor == null) {
                return items;
            }
            assertThat(ps.size()).as("a page with a next_cursor is full").isEqualTo(limit);
        }
        throw new AssertionError("more than 100 pages");
    }

    /** What the page showed before the read model: participantJson of the waiting/admitted rows, by id. */
    private static List<String> truthPage(Scenario s) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = h.db()) {
            for (ParticipantRow p : ParticipantRow.all(c, UUID.fromString(s.meetingId),
                    "AND admission_state IN ('waiting','admitted')")) {
                out.add(ParticipantService.participantJson(p).toString());
            }
        }
        return out;
    }

    private static List<String> rows(String sql, String meetingId) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = h.db(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setObject(1, UUID.fromString(meetingId));
            try (ResultSet rs = ps.executeQuery()) {
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    StringBuilder b = new StringBuilder();
                    for (int i = 1; i <= n; i++) {
                        b.append(rs.getString(i)).append('|');
                    }
                    out.add(b.toString());
                }
            }
        }
        return out;
    }

    /** Every participant of the meeting as the tables have it (all states, the page's fields). */
    private static List<String> sourceRows(String m) throws Exception {
        return rows("SELECT participant_id, display_name, role, admission_state, version, audio_publish_allowed, "
                + "video_publish_allowed, screen_publish_allowed FROM meeting_participants WHERE meeting_id = ? "
                + "ORDER BY participant_id", m);
    }

    /** The same fields of every read-model entry of the meeting. */
    private static List<String> modelRows(String m) throws Exception {
        return rows("SELECT participant_id, display_name, role, admission_state, participant_version, audio_publish, "
                + "video_publish, screen_publish FROM roster_entries WHERE meeting_id = ? ORDER BY participant_id", m);
    }

    /** Entries with their bookkeeping (last position and event; with {@code updatedAt}, the last write too). */
    private static List<String> fullRows(String m, boolean updatedAt) throws Exception {
        return rows("SELECT participant_id, display_name, role, admission_state, participant_version, audio_publish, "
                + "video_publish, screen_publish, last_position, last_event_id" + (updatedAt ? ", updated_at" : "")
                + " FROM roster_entries WHERE meeting_id = ? ORDER BY participant_id", m);
    }

    private static String checkpoint(String m) throws Exception {
        List<String> r = rows("SELECT last_position, seen_epoch, seen_seq FROM roster_checkpoints WHERE meeting_id = ?", m);
        return r.isEmpty() ? null : r.get(0);
    }

    /** The projection has caught up with the meeting: its checkpoint is at the meeting's control cursor. */
    private static void awaitCaughtUp(String m) {
        await().atMost(CATCH_UP).pollInterval(Duration.ofMillis(50)).until(() -> {
            String cursor = h.scalar("SELECT controller_epoch || '|' || control_seq || '|' FROM meetings WHERE meeting_id = '"
                    + m + "'");
            String k = checkpoint(m);
            return k != null && k.endsWith("|" + cursor);
        });
    }

    private static int sql(String sql) throws Exception {
        try (Connection c = h.db(); var st = c.createStatement()) {
            return st.executeUpdate(sql);
        }
    }

    private static JsonNode entry(List<String> page, String pid) throws Exception {
        for (String p : page) {
            JsonNode n = ControllerHarness.JSON.readTree(p);
            if (n.get("participant_id").asText().equals(pid)) {
                return n;
            }
        }
        return null;
    }

    private static void awaitEntry(Scenario s, String pid, String field, String value) {
        await().atMost(CATCH_UP).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
            JsonNode e = entry(allPages(s, 100), pid);
            assertThat(e).as("participant " + pid + " on the roster page").isNotNull();
            assertThat(e.get(field).asText()).isEqualTo(value);
        });
    }

    @Test
    @Order(1)
    void joinAdmitSetRoleRemoveDenyAndEndReachTheRosterPage() throws Exception {
        Scenario s = new Scenario(h).meeting(true, live());
        String m = s.meetingId;
        awaitEntry(s, s.hostPid, "role", "host");

        // join into the waiting room: the event's display name reaches the page
        String aToken = ControllerHarness.token(s.tenant, UUID.randomUUID());
        var a = join(s, aToken, "Ada Lovelace");
        assertThat(a.status()).as(a.raw()).isEqualTo(201);
        String aPid = a.text("participant_id");
        awaitEntry(s, aPid, "admission_state", "waiting");
        assertThat(entry(allPages(s, 100), aPid).get("display_name").asText()).isEqualTo("Ada Lovelace");

        // admit (the one-statement path) → admitted with publish rights
        var admit = s.command(live(), "{\"type\":\"admit\",\"participant_id\":\"" + aPid + "\"}");
        assertThat(admit.status()).as(admit.raw()).isEqualTo(201);
        awaitEntry(s, aPid, "admission_state", "admitted");
        assertThat(entry(allPages(s, 100), aPid).get("publish").get("video").asBoolean()).isTrue();

        // set_role → cohost
        var role = s.command(live(), "{\"type\":\"set_role\",\"participant_id\":\"" + aPid + "\",\"role\":\"cohost\"}");
        assertThat(role.status()).as(role.raw()).isEqualTo(201);
        awaitEntry(s, aPid, "role", "cohost");

        // remove (banned) → gone from the page; deny a waiting one → gone too
        String bToken = ControllerHarness.token(s.tenant, UUID.randomUUID());
        String bPid = join(s, bToken, "Bob").text("participant_id");
        String cToken = ControllerHarness.token(s.tenant, UUID.randomUUID());
        String cPid = join(s, cToken, "Carol").text("participant_id");
        assertThat(s.command(live(), "{\"type\":\"admit\",\"participant_id\":\"" + bPid + "\"}").status()).isEqualTo(201);
        awaitEntry(s, bPid, "admission_state", "admitted");
        awaitEntry(s, cPid, "admission_state", "waiting");
        assertThat(s.command(live(), "{\"type\":\"remove_participant\",\"participant_id\":\"" + bPid + "\"}").status()).isEqualTo(201);
        assertThat(s.command(live(), "{\"type\":\"deny\",\"participant_id\":\"" + cPid + "\"}").status()).isEqualTo(201);
        await().atMost(CATCH_UP).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
            List<String> p = allPages(s, 100);
            assertThat(entry(p, bPid)).isNull();
            assertThat(entry(p, cPid)).isNull();
        });

        // leaving on the signaling socket → gone from the page
        String[] d = s.admittedAttendee(live());
        awaitEntry(s, d[1], "admission_state", "admitted");
        WsClient ws = s.joinedSocket(d, "t-leaver");
        ws.send("{\"type\":\"leave\"}");
        await().atMost(CATCH_UP).pollInterval(Duration.ofMillis(50)).untilAsserted(() ->
                assertThat(entry(allPages(s, 100), d[1])).isNull());
        ws.close();

        // caught up, the page is byte for byte what the tables gave before, and every entry (left/removed ones too)
        // has the tables' fields
        awaitCaughtUp(m);
        assertThat(allPages(s, 100)).isEqualTo(truthPage(s)).hasSize(2);
        assertThat(modelRows(m)).isEqualTo(sourceRows(m)).hasSize(5);
        assertThat(h.scalar("SELECT admission_state FROM roster_entries WHERE participant_id = '" + d[1] + "'"))
                .isEqualTo("left");
        var r = page(s, s.hostToken, "");
        assertThat(r.text("control_cursor")).isEqualTo(h.scalar("SELECT controller_epoch || '.' || control_seq "
                + "FROM meetings WHERE meeting_id = '" + m + "'"));

        // ending the meeting sets everyone left without a participant event each: the model follows meeting.ending
        var end = s.command(live(), "{\"type\":\"end_meeting\"}");
        assertThat(end.status()).as(end.raw()).isEqualTo(201);
        awaitCaughtUp(m);
        assertThat(modelRows(m)).isEqualTo(sourceRows(m));
        assertThat(rows("SELECT 1 FROM roster_entries WHERE meeting_id = ? AND admission_state IN ('waiting','admitted')", m))
                .isEmpty();
    }

    @Test
    @Order(2)
    void reappliedEventsChangeNothingAndARebuildGivesTheSameRows() throws Exception {
        Scenario s = new Scenario(h).meeting(true, live());
        String m = s.meetingId;
        List<String[]> people = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            people.add(s.admittedAttendee(live()));
        }
        assertThat(s.command(live(), "{\"type\":\"set_role\",\"participant_id\":\"" + people.get(0)[1]
                + "\",\"role\":\"cohost\"}").status()).isEqualTo(201);
        assertThat(s.command(live(), "{\"type\":\"set_publish\",\"participant_id\":\"" + people.get(1)[1]
                + "\",\"video\":false}").status()).isEqualTo(201);
        assertThat(s.command(live(), "{\"type\":\"mute_all\",\"allow_self_unmute\":false}").status()).isEqualTo(201);
        assertThat(s.command(live(), "{\"type\":\"remove_participant\",\"participant_id\":\"" + people.get(2)[1]
                + "\",\"allow_rejoin\":true}").status()).isEqualTo(201);
        assertThat(s.command(live(), "{\"type\":\"transfer_host\",\"participant_id\":\"" + people.get(0)[1] + "\"}")
                .status()).isEqualTo(201);
        awaitCaughtUp(m);
        assertThat(modelRows(m)).isEqualTo(sourceRows(m)).hasSize(5);
        List<String> incremental = fullRows(m, true);
        String k = checkpoint(m);

        // at least once: the checkpoint falls back to the start (a lost or old checkpoint) and every event is read and
        // applied again by the background projection — no entry is written (same updated_at), the checkpoint returns
        sql("UPDATE roster_checkpoints SET last_position = 0, seen_epoch = 0, seen_seq = 0 WHERE meeting_id = '" + m + "'");
        awaitCaughtUp(m);
        assertThat(checkpoint(m)).isEqualTo(k);
        assertThat(fullRows(m, true)).isEqualTo(incremental);

        // and twice more at the same time (two projectors): still nothing written
        sql("UPDATE roster_checkpoints SET last_position = 0 WHERE meeting_id = '" + m + "'");
        UUID mid = UUID.fromString(m);
        var one = CompletableFuture.supplyAsync(() -> projector().catchUp(mid, true));
        var two = CompletableFuture.supplyAsync(() -> projector().catchUp(mid, true));
        int reapplied = one.get() + two.get();
        long roster = h.count("SELECT count(*) FROM outbox_events WHERE meeting_id = '" + m + "' AND (event_type LIKE "
                + "'participant.%' OR event_type = 'meeting.ending')");
        // the first to get the meeting's lock re-read all of them, the second found nothing after the checkpoint
        assertThat(reapplied).isEqualTo((int) roster);
        assertThat(checkpoint(m)).isEqualTo(k);
        assertThat(fullRows(m, true)).isEqualTo(incremental);

        // a rebuild from scratch (internal API) gives exactly the incremental rows, bookkeeping included
        var denied = h.call(h.base(live()), "POST", "/internal/v1/meetings/" + m + "/roster/rebuild", "wrong", null, null, null);
        assertThat(denied.status()).isEqualTo(401);
        var rebuilt = h.call(h.base(live()), "POST", "/internal/v1/meetings/" + m + "/roster/rebuild",
                ControllerHarness.INTERNAL_SECRET, null, null, null);
        assertThat(rebuilt.status()).as(rebuilt.raw()).isEqualTo(200);
        assertThat(rebuilt.body().get("events").asLong()).isEqualTo(roster);
        assertThat(fullRows(m, false)).isEqualTo(stripUpdatedAt(incremental));
        assertThat(checkpoint(m)).isEqualTo(k);
        var unknown = h.call(h.base(live()), "POST", "/internal/v1/meetings/" + UUID.randomUUID() + "/roster/rebuild",
                ControllerHarness.INTERNAL_SECRET, null, null, null);
        assertThat(unknown.status()).isEqualTo(404);

        // lost read model (rows and checkpoint gone): the background projection alone rebuilds the same rows
        sql("DELETE FROM roster_entries WHERE meeting_id = '" + m + "'");
        sql("DELETE FROM roster_checkpoints WHERE meeting_id = '" + m + "'");
        awaitCaughtUp(m);
        assertThat(fullRows(m, false)).isEqualTo(stripUpdatedAt(incremental));

        // rebuild of everything: same rows again
        var all = h.call(h.base(live()), "POST", "/internal/v1/roster/rebuild", ControllerHarness.INTERNAL_SECRET, null,
                null, null);
        assertThat(all.status()).as(all.raw()).isEqualTo(200);
        assertThat(all.body().get("meetings").asLong()).isGreaterThanOrEqualTo(2);
        assertThat(fullRows(m, false)).isEqualTo(stripUpdatedAt(incremental));
        assertThat(allPages(s, 100)).isEqualTo(truthPage(s));
    }

    private static List<String> stripUpdatedAt(List<String> withUpdatedAt) {
        List<String> out = new ArrayList<>();
        for (String r : withUpdatedAt) {
            String noTrailing = r.substring(0, r.length() - 1);
            out.add(noTrailing.substring(0, noTrailing.lastIndexOf('|') + 1));
        }
        return out;
    }

    @Test
    @Order(3)
    void theReadModelNeverDecidesAccess() throws Exception {
        Scenario s = new Scenario(h).meeting(true, live());
        String m = s.meetingId;
        String[] removed = s.admittedAttendee(live());
        String[] admitted = s.admittedAttendee(live());
        String deniedToken = ControllerHarness.token(s.tenant, UUID.randomUUID());
        String deniedPid = join(s, deniedToken, "Denied").text("participant_id");
        String waitingToken = ControllerHarness.token(s.tenant, UUID.randomUUID());
        String waitingPid = join(s, waitingToken, "Waiting").text("participant_id");
        assertThat(s.command(live(), "{\"type\":\"remove_participant\",\"participant_id\":\"" + removed[1] + "\"}").status()).isEqualTo(201);
        assertThat(s.command(live(), "{\"type\":\"deny\",\"participant_id\":\"" + deniedPid + "\"}").status()).isEqualTo(201);
        awaitCaughtUp(m);

        // corrupt the read model: the banned and the denied participants admitted hosts, the waiting one admitted,
        // the admitted one removed
        sql("UPDATE roster_entries SET admission_state = 'admitted', role = 'host', audio_publish = true, "
                + "video_publish = true, screen_publish = true WHERE participant_id IN ('" + removed[1] + "', '" + deniedPid + "')");
        sql("UPDATE roster_entries SET admission_state = 'admitted' WHERE participant_id = '" + waitingPid + "'");
        sql("UPDATE roster_entries SET admission_state = 'removed' WHERE participant_id = '" + admitted[1] + "'");
        // the page does come from the read model (display only)...
        List<String> corrupted = allPages(s, 100);
        assertThat(entry(corrupted, removed[1]).get("role").asText()).isEqualTo("host");
        assertThat(entry(corrupted, admitted[1])).isNull();

        // ...but every decision reads the tables
        var t1 = s.transport(live(), removed[0], removed[1], 0, "t-removed");
        assertThat(t1.status()).as(t1.raw()).isEqualTo(403);
        assertThat(t1.text("code")).isEqualTo("participant_removed");
        var t2 = s.transport(live(), deniedToken, deniedPid, 0, "t-denied");
        assertThat(t2.status()).as(t2.raw()).isEqualTo(403);
        assertThat(t2.text("code")).isEqualTo("participant_removed");
        var t3 = s.transport(live(), waitingToken, waitingPid, 0, "t-waiting");
        assertThat(t3.status()).as(t3.raw()).isEqualTo(403);
        assertThat(t3.text("code")).isEqualTo("not_admitted");
        var t4 = s.transport(live(), admitted[0], admitted[1], 0, "t-admitted");
        assertThat(t4.status()).as(t4.raw()).isEqualTo(200);
        var rejoin = join(s, removed[0], "Again");
        assertThat(rejoin.status()).as(rejoin.raw()).isEqualTo(403);
        assertThat(rejoin.text("code")).isEqualTo("principal_banned");
        var cmd = h.call(live(), "POST", "/v1/meetings/" + m + "/commands", removed[0], "cmd-" + UUID.randomUUID(),
                "{\"type\":\"lock_meeting\",\"locked\":true}");
        assertThat(cmd.status()).as(cmd.raw()).isEqualTo(403);
        assertThat(cmd.text("code")).isEqualTo("not_a_moderator");
        var admitByWaiting = h.call(live(), "POST", "/v1/meetings/" + m + "/commands", waitingToken, "cmd-" + UUID.randomUUID(),
                "{\"type\":\"admit\",\"participant_id\":\"" + waitingPid + "\"}");
        assertThat(admitByWaiting.status()).as(admitByWaiting.raw()).isEqualTo(403);
        // who may read the roster is decided from the tables too: the removed one may not, the "removed" one may
        assertThat(page(s, removed[0], "").text("code")).isEqualTo("not_a_participant");
        assertThat(page(s, admitted[0], "").status()).isEqualTo(200);
        // and the tables never moved
        assertThat(h.scalar("SELECT admission_state FROM meeting_participants WHERE participant_id = '" + removed[1] + "'"))
                .isEqualTo("removed");
        assertThat(h.scalar("SELECT admission_state FROM meeting_participants WHERE participant_id = '" + waitingPid + "'"))
                .isEqualTo("waiting");

        // a rebuild repairs the display
        assertThat(projector().rebuild(UUID.fromString(m))).isPositive();
        assertThat(modelRows(m)).isEqualTo(sourceRows(m));
        assertThat(allPages(s, 100)).isEqualTo(truthPage(s));
    }

    @Test
    @Order(4)
    void pagingWithCursorAndTheProjectionLag() throws Exception {
        Scenario s = new Scenario(h).meeting(false, live());
        String m = s.meetingId;
        for (int i = 0; i < 6; i++) {
            assertThat(join(s, ControllerHarness.token(s.tenant, UUID.randomUUID()), "P" + i).status()).isEqualTo(201);
        }
        awaitCaughtUp(m);
        List<String> truth = truthPage(s);
        assertThat(truth).hasSize(7);
        for (int limit : new int[]{1, 2, 3, 7, 100}) {
            assertThat(allPages(s, limit)).as("limit " + limit).isEqualTo(truth);
        }
        var first = page(s, s.hostToken, "?limit=3");
        assertThat(first.body().get("participants")).hasSize(3);
        assertThat(first.text("next_cursor")).isEqualTo(first.body().get("participants").get(2).get("participant_id").asText());
        assertThat(page(s, s.hostToken, "?limit=0").status()).isEqualTo(400);
        assertThat(page(s, s.hostToken, "?cursor=not-a-uuid").status()).isEqualTo(400);

        // the page may lag: while another holder keeps the meeting's projection lock, a join is committed (and
        // visible to the API) but not yet on the page, and parley_roster_projection_lag_events counts it
        UUID mid = UUID.fromString(m);
        String late;
        try (Connection blocker = h.db(); var st = blocker.createStatement()) {
            st.execute("SELECT pg_advisory_lock(" + RosterStore.LOCK_CLASS + ", " + mid.hashCode() + ")");
            var j = join(s, ControllerHarness.token(s.tenant, UUID.randomUUID()), "Late");
            assertThat(j.status()).isEqualTo(201);
            late = j.text("participant_id");
            Thread.sleep(3 * RosterProjector.POLL_MILLIS);
            assertThat(entry(allPages(s, 100), late)).isNull();
            assertThat(h.count("SELECT count(*) FROM meeting_participants WHERE participant_id = '" + late + "'")).isEqualTo(1);
            var prom = h.call(h.base(live()), "GET", "/prometheus", null, null, null, null);
            assertThat(prom.raw()).containsPattern("(?m)^parley_roster_projection_lag_events(\\{[^}]*})? [1-9]");
            st.execute("SELECT pg_advisory_unlock(" + RosterStore.LOCK_CLASS + ", " + mid.hashCode() + ")");
        }
        awaitEntry(s, late, "display_name", "Late");
        awaitCaughtUp(m);
        await().atMost(CATCH_UP).untilAsserted(() -> assertThat(h.call(h.base(live()), "GET", "/prometheus", null, null,
                null, null).raw()).containsPattern("(?m)^parley_roster_projection_lag_events(\\{[^}]*})? 0\\.0$"));
    }

    @Test
    @Order(4)
    void entriesByIdsForWhatAPagedClientWatchesOffItsPage() throws Exception {
        Scenario s = new Scenario(h).meeting(false, live());
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            var j = join(s, ControllerHarness.token(s.tenant, UUID.randomUUID()), "W" + i);
            assertThat(j.status()).isEqualTo(201);
            ids.add(j.text("participant_id"));
        }
        awaitCaughtUp(s.meetingId);
        String stranger = UUID.randomUUID().toString();
        // two of the meeting's people, one repeated, and an id that is nobody: the two, by id, no next_cursor
        var r = page(s, s.hostToken, "?ids=" + ids.get(3) + "," + ids.get(1) + "," + ids.get(3) + "," + stranger);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        List<String> got = new ArrayList<>();
        r.body().get("participants").forEach(p -> got.add(p.get("participant_id").asText()));
        assertThat(got).isEqualTo(java.util.stream.Stream.of(ids.get(1), ids.get(3)).sorted().toList());
        assertThat(r.body().has("next_cursor")).isFalse();
        assertThat(r.body().get("participants").get(0).get("display_name").asText()).startsWith("W");
        assertThat(r.text("control_cursor")).isNotBlank();

        // bad input: a clear 400 naming the parameter (101 ids: one more than a request may name)
        String many = String.join(",", java.util.stream.Stream.generate(() -> UUID.randomUUID().toString()).limit(101).toList());
        for (String q : new String[]{"?ids=", "?ids=not-a-uuid", "?ids=" + ids.get(0) + ",", "?ids=" + many,
                "?ids=" + ids.get(0) + "&limit=2", "?ids=" + ids.get(0) + "&cursor=" + ids.get(1)}) {
            var bad = page(s, s.hostToken, q);
            assertThat(bad.status()).as(q + ": " + bad.raw()).isEqualTo(400);
            assertThat(bad.text("code")).as(q).isEqualTo("invalid_parameter");
            assertThat(bad.text("parameter")).as(q).isEqualTo("ids");
        }
        // the same access rule as the pages: someone who is not in the meeting reads nothing
        var outsider = page(s, ControllerHarness.token(s.tenant, UUID.randomUUID()), "?ids=" + ids.get(0));
        assertThat(outsider.status()).as(outsider.raw()).isEqualTo(403);
    }

    @Test
    @Order(5)
    void aReadThatFindsItsMeetingBehindAppliesThePendingEventsFirst() throws Exception {
        Scenario s = new Scenario(h).meeting(false, live());
        awaitCaughtUp(s.meetingId);
        projector().pause(true);
        try {
            var j = join(s, ControllerHarness.token(s.tenant, UUID.randomUUID()), "Fresh");
            assertThat(j.status()).isEqualTo(201);
            Thread.sleep(3 * RosterProjector.POLL_MILLIS);
            String stale = checkpoint(s.meetingId);
            // the background loop stands still: the checkpoint is behind the meeting...
            assertThat(stale).doesNotEndWith("|" + h.scalar("SELECT control_seq || '|' FROM meetings WHERE meeting_id = '"
                    + s.meetingId + "'"));
            // ...and the read applies the join before answering, from the read model
            var r = page(s, s.hostToken, "");
            assertThat(entry(allPages(s, 100), j.text("participant_id"))).isNotNull();
            assertThat(r.text("control_cursor")).isEqualTo(h.scalar("SELECT controller_epoch || '.' || control_seq "
                    + "FROM meetings WHERE meeting_id = '" + s.meetingId + "'"));
            assertThat(modelRows(s.meetingId)).isEqualTo(sourceRows(s.meetingId)).hasSize(2);
        } finally {
            projector().pause(false);
        }
    }

    @Test
    @Order(6)
    void roundsCutShortByTheEventLimitStillConverge() throws Exception {
        // a round cut short decides which meetings are done by PostgreSQL's uuid order: the projector's comparison
        // must agree with it (Java's UUID.compareTo does not, on ids with the high bit set)
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            ids.add(UUID.randomUUID());
        }
        List<UUID> byPostgres = new ArrayList<>();
        try (Connection c = h.db(); PreparedStatement ps = c.prepareStatement("SELECT x FROM unnest(?::uuid[]) x ORDER BY x")) {
            ps.setArray(1, c.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    byPostgres.add(rs.getObject(1, UUID.class));
                }
            }
        }
        List<UUID> byProjector = new ArrayList<>(ids);
        byProjector.sort(RosterProjection::pgCompare);
        assertThat(byProjector).isEqualTo(byPostgres);

        Scenario one = new Scenario(h).meeting(true, live());
        Scenario two = new Scenario(h).meeting(false, live());
        awaitCaughtUp(one.meetingId);
        awaitCaughtUp(two.meetingId);
        projector().eventsPerRound(3);
        try (Connection blocker = h.db(); var st = blocker.createStatement()) {
            // both meetings move while their projection is held back, so one round finds both with 12 events to apply
            for (Scenario s : List.of(one, two)) {
                st.execute("SELECT pg_advisory_lock(" + RosterStore.LOCK_CLASS + ", " + UUID.fromString(s.meetingId).hashCode() + ")");
            }
            for (int i = 0; i < 3; i++) {
                one.admittedAttendee(live());
                two.admittedAttendee(live());
            }
            String[] x = one.admittedAttendee(live());
            assertThat(one.command(live(), "{\"type\":\"set_role\",\"participant_id\":\"" + x[1]
                    + "\",\"role\":\"cohost\"}").status()).isEqualTo(201);
            st.execute("SELECT pg_advisory_unlock_all()");
            awaitCaughtUp(one.meetingId);
            awaitCaughtUp(two.meetingId);
            assertThat(modelRows(one.meetingId)).isEqualTo(sourceRows(one.meetingId)).hasSize(5);
            assertThat(modelRows(two.meetingId)).isEqualTo(sourceRows(two.meetingId)).hasSize(4);
            assertThat(allPages(one, 2)).isEqualTo(truthPage(one));
            // a rebuild under the same limit reads on until the meeting is complete
            long events = h.count("SELECT count(*) FROM outbox_events WHERE meeting_id = '" + one.meetingId
                    + "' AND (event_type LIKE 'participant.%' OR event_type = 'meeting.ending')");
            assertThat(events).isEqualTo(10);
            List<String> incremental = fullRows(one.meetingId, false);
            assertThat(projector().rebuild(UUID.fromString(one.meetingId))).isEqualTo(10);
            assertThat(fullRows(one.meetingId, false)).isEqualTo(incremental);
        } finally {
            projector().eventsPerRound(RosterProjector.EVENTS_PER_ROUND);
        }
    }

    @Test
    @Order(7)
    void anEventWithoutAParticipantDocumentIsSkippedAndDoesNotStallTheMeeting() throws Exception {
        Scenario s = new Scenario(h).meeting(false, live());
        String m = s.meetingId;
        awaitCaughtUp(m);
        MeterRegistry meters = h.controllers.get(live()).getBean(MeterRegistry.class);
        double skippedBefore = meters.counter("parley_roster_projection_events_skipped").count();
        // a committed participant event whose payload lacks the document (written as a business transaction would:
        // outbox row and control sequence step together)
        try (Connection c = h.db()) {
            c.setAutoCommit(false);
            try (var st = c.createStatement()) {
                st.executeUpdate("UPDATE meetings SET control_seq = control_seq + 1 WHERE meeting_id = '" + m + "'");
                st.executeUpdate("INSERT INTO outbox_events (event_id, meeting_id, aggregate_version, event_type, "
                        + "idempotency_key, payload) VALUES (gen_random_uuid(), '" + m + "', 1, 'participant.left', "
                        + "'broken', '{\"participant_id\":\"" + s.hostPid + "\"}')");
            }
            c.commit();
        }
        awaitCaughtUp(m);
        assertThat(meters.counter("parley_roster_projection_events_skipped").count()).isEqualTo(skippedBefore + 1);
        // the host's entry is untouched and later events of the meeting still apply
        assertThat(entry(allPages(s, 100), s.hostPid).get("admission_state").asText()).isEqualTo("admitted");
        String late = join(s, ControllerHarness.token(s.tenant, UUID.randomUUID()), "After").text("participant_id");
        awaitEntry(s, late, "display_name", "After");
        awaitCaughtUp(m);
        assertThat(modelRows(m)).isEqualTo(sourceRows(m)).hasSize(2);
    }

    @Test
    @Order(8)
    void aRestartedProcessResumesFromTheCheckpoints() throws Exception {
        // everything so far is projected
        await().atMost(CATCH_UP).until(() -> h.count("SELECT count(*) FROM meetings m LEFT JOIN roster_checkpoints k "
                + "ON k.meeting_id = m.meeting_id WHERE (m.controller_epoch, m.control_seq) IS DISTINCT FROM "
                + "(COALESCE(k.seen_epoch, m.controller_epoch), COALESCE(k.seen_seq, 0))") == 0);
        long projectedBefore = h.count("SELECT count(*) FROM outbox_events WHERE event_type LIKE 'participant.%' "
                + "OR event_type = 'meeting.ending'");
        assertThat(projectedBefore).isGreaterThan(20);
        h.stopController(0);
        h.startController("controller-1");

        Scenario s = new Scenario(h).meeting(false, live());
        String[] a = s.admittedAttendee(live());
        assertThat(s.command(live(), "{\"type\":\"set_role\",\"participant_id\":\"" + a[1] + "\",\"role\":\"cohost\"}")
                .status()).isEqualTo(201);
        awaitCaughtUp(s.meetingId);
        assertThat(modelRows(s.meetingId)).isEqualTo(sourceRows(s.meetingId));
        // the new process applied the new events only (3: two joins, one role change), not the history again
        long after = h.count("SELECT count(*) FROM outbox_events WHERE event_type LIKE 'participant.%' "
                + "OR event_type = 'meeting.ending'");
        assertThat(after - projectedBefore).isEqualTo(3);
        double applied = h.controllers.get(live()).getBean(MeterRegistry.class)
                .counter("parley_roster_projection_events_applied").count();
        assertThat(applied).isEqualTo(3.0);
    }
}
