package dev.parley.controller.coalesce;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.ApiException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The paged roster's parts without a server: the watch set of a {@code roster_page} (validated and bounded), the
 * filter of a window's merged changes (paging and coalescing commute: the watched part of the full roster after a
 * delta is the watched part before it with the filtered delta applied), the tally (any order, duplicates and a
 * load from the database give the same counts) and the summary's wire form.
 */
class RosterPagingTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode page(String json) throws Exception {
        return JSON.readTree(json);
    }

    @Test
    void aRosterPageIsValidatedAndBounded() throws Exception {
        String a = UUID.randomUUID().toString();
        assertThat(RosterWatch.parse(page("{\"participant_ids\":[\"" + a + "\",\"" + a + "\"]}")).size()).isEqualTo(1);
        assertThat(RosterWatch.parse(page("{\"participant_ids\":[]}")).size()).isZero();
        for (String bad : List.of("{}", "{\"participant_ids\":\"x\"}", "{\"participant_ids\":{}}",
                "{\"participant_ids\":[1]}", "{\"participant_ids\":[null]}", "{\"participant_ids\":[\"not-a-uuid\"]}",
                "{\"participant_ids\":[\"" + a + "x\"]}", "{\"participant_ids\":[[\"" + a + "\"]]}",
                "{\"participant_ids\":[\"zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz\"]}")) {
            assertThatThrownBy(() -> RosterWatch.parse(page(bad))).as(bad)
                    .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo("invalid_roster_page"));
        }
        StringBuilder many = new StringBuilder("{\"participant_ids\":[");
        for (int i = 0; i <= RosterWatch.MAX_IDS; i++) {
            many.append(i == 0 ? "" : ",").append('"').append(UUID.randomUUID()).append('"');
        }
        String tooMany = many.append("]}").toString();
        assertThatThrownBy(() -> RosterWatch.parse(page(tooMany))).isInstanceOf(ApiException.class)
                .hasMessageContaining("at most " + RosterWatch.MAX_IDS);
    }

    @Test
    void aSocketGetsItsPageItselfAndModeratorsEvenAfterTheyLeft() throws Exception {
        String self = UUID.randomUUID().toString();
        String shown = UUID.randomUUID().toString();
        String host = UUID.randomUUID().toString();
        String other = UUID.randomUUID().toString();
        RosterTally tally = new RosterTally();
        tally.put(host, 1, "host", "admitted");
        tally.put(host, 2, "attendee", "left"); // a leaving host's document says attendee
        RosterWatch w = RosterWatch.parse(page("{\"participant_ids\":[\"" + shown + "\"]}"));
        Map<String, RosterChange> changes = new LinkedHashMap<>();
        for (String p : List.of(other, shown, host, self)) {
            changes.put(p, RosterChange.patch(Map.of("display_name", p)));
        }
        assertThat(w.filter(changes, self, tally).keySet()).containsExactly(shown, host, self);
        assertThat(RosterWatch.NONE.filter(Map.of(other, RosterChange.remove()), self, tally)).isEmpty();
    }

    /** Paging commutes with coalescing, for random windows, rosters and watch sets. */
    @Test
    void theWatchedPartOfTheRosterFollowsTheFilteredDeltas() {
        Random r = new Random(18);
        for (int round = 0; round < 300; round++) {
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                ids.add(UUID.randomUUID().toString());
            }
            RosterTally tally = new RosterTally();
            if (r.nextBoolean()) {
                tally.put(ids.get(r.nextInt(30)), 1, "host", "admitted");
            }
            Set<String> shown = new HashSet<>();
            for (int i = 0; i < r.nextInt(12); i++) {
                shown.add(ids.get(r.nextInt(30)));
            }
            String self = ids.get(r.nextInt(30));
            StringBuilder json = new StringBuilder("{\"participant_ids\":[");
            int n = 0;
            for (String s : shown) {
                json.append(n++ == 0 ? "" : ",").append('"').append(s).append('"');
            }
            RosterWatch w = RosterWatch.parse(readTree(json.append("]}").toString()));
            Map<String, Map<String, String>> full = new HashMap<>();
            Map<String, Map<String, String>> watched = new HashMap<>();
            for (int window = 0; window < 5; window++) {
                RosterCoalescer c = new RosterCoalescer();
                UUID m = UUID.randomUUID();
                for (int k = 0; k < r.nextInt(40); k++) {
                    String p = ids.get(r.nextInt(30));
                    c.add(m, p, r.nextInt(3) == 0 ? RosterChange.remove()
                            : RosterChange.patch(Map.of("display_name", "n" + r.nextInt(5), "v", Integer.toString(k))));
                }
                Map<String, RosterChange> delta = c.drain().getOrDefault(m, Map.of());
                RosterCoalescer.apply(full, delta);
                RosterCoalescer.apply(watched, w.filter(delta, self, tally));
                Map<String, Map<String, String>> expected = new HashMap<>(full);
                expected.keySet().removeIf(p -> !w.wants(p, self, tally));
                assertThat(watched).as("round %d window %d", round, window).isEqualTo(expected);
            }
        }
    }

    @Test
    void theTallyIsTheSameWhateverTheOrderDuplicatesOrALoad() {
        Random r = new Random(7);
        for (int round = 0; round < 200; round++) {
            List<ObjectNode> docs = new ArrayList<>();
            Map<String, ObjectNode> latest = new HashMap<>();
            String[] states = {"waiting", "admitted", "admitted", "left", "removed", "denied"};
            String[] roles = {"attendee", "attendee", "cohost", "host"};
            for (int i = 0; i < 40; i++) {
                String p = "p" + r.nextInt(12);
                long v = latest.containsKey(p) ? latest.get(p).path("participant_version").asLong() + 1 : 1;
                ObjectNode d = JSON.createObjectNode();
                d.put("participant_id", p);
                d.put("participant_version", v);
                d.put("role", roles[r.nextInt(roles.length)]);
                d.put("admission_state", states[r.nextInt(states.length)]);
                docs.add(d);
                latest.put(p, d);
            }
            RosterTally inOrder = new RosterTally();
            docs.forEach(inOrder::apply);
            List<ObjectNode> shuffled = new ArrayList<>(docs);
            shuffled.addAll(docs.subList(0, r.nextInt(docs.size())));
            Collections.shuffle(shuffled, r);
            RosterTally anyOrder = new RosterTally();
            shuffled.forEach(anyOrder::apply);
            RosterTally loaded = new RosterTally(); // some events first, then the database's rows (latest state)
            shuffled.subList(0, r.nextInt(shuffled.size())).forEach(loaded::apply);
            latest.values().forEach(d -> loaded.put(d.path("participant_id").asText(),
                    d.path("participant_version").asLong(), d.path("role").asText(), d.path("admission_state").asText()));
            int admitted = 0;
            int waiting = 0;
            Map<String, Integer> byRole = new HashMap<>();
            for (ObjectNode d : latest.values()) {
                if ("admitted".equals(d.path("admission_state").asText())) {
                    admitted++;
                    byRole.merge(d.path("role").asText(), 1, Integer::sum);
                } else if ("waiting".equals(d.path("admission_state").asText())) {
                    waiting++;
                }
            }
            RosterTally.Counts expected = new RosterTally.Counts(admitted, waiting, byRole);
            assertThat(inOrder.counts()).isEqualTo(expected);
            assertThat(anyOrder.counts()).isEqualTo(expected);
            assertThat(loaded.counts()).isEqualTo(expected);
            assertThat(inOrder.admitted()).isEqualTo(admitted);
        }
        RosterTally t = new RosterTally();
        t.apply(JSON.createObjectNode().put("participant_id", "x")); // no state or version: ignored
        t.apply(null);
        assertThat(t.counts().count()).isZero();
    }

    @Test
    void theSummaryCarriesRangeCountsAndOnlyTheWatchedChanges() throws Exception {
        RosterTally.Counts counts = new RosterTally.Counts(998, 3, Map.of("host", 1, "attendee", 997));
        String s = RosterSummaryJson.encode("4.10", "4.17", counts, Map.of());
        assertThat(s).isEqualTo("{\"type\":\"roster_summary\",\"after\":\"4.10\",\"cursor\":\"4.17\",\"count\":998,"
                + "\"waiting\":3,\"by_role\":{\"attendee\":997,\"host\":1}}");
        JsonNode withChanges = JSON.readTree(RosterSummaryJson.encode(null, null, counts,
                Map.of("p", RosterChange.remove())));
        assertThat(withChanges.has("after")).isFalse();
        assertThat(withChanges.path("changes").get(0).path("op").asText()).isEqualTo("remove");
        assertThat(s.length()).as("a summary is small whatever the meeting's size").isLessThan(130);
    }

    private static JsonNode readTree(String json) {
        try {
            return JSON.readTree(json);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
