package dev.parley.controller.coalesce;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The roster coalescer: a merged window has the same effect as its changes one by one, and costs one delta. */
class RosterCoalescerTest {

    @Test
    void aRemovalThenAJoinReplacesTheEntry() {
        RosterCoalescer c = new RosterCoalescer();
        UUID m = UUID.randomUUID();
        c.add(m, "p", RosterChange.remove());
        c.add(m, "p", RosterChange.patch(Map.of("state", "admitted")));
        c.add(m, "p", RosterChange.patch(Map.of("name", "Ari")));
        Map<String, RosterChange> delta = c.drain().get(m);
        assertThat(delta).containsExactly(Map.entry("p",
                new RosterChange(RosterChange.Kind.REPLACE, Map.of("state", "admitted", "name", "Ari"))));
        Map<String, Map<String, String>> roster = new HashMap<>(Map.of("p", Map.of("state", "waiting", "hand", "up")));
        RosterCoalescer.apply(roster, delta);
        assertThat(roster).containsExactly(Map.entry("p", Map.of("state", "admitted", "name", "Ari")));
        assertThat(c.drain()).as("drained").isEmpty();
    }

    @Test
    void aJoinStormOfAThousandIsOneDeltaPerMeetingAndWindow() throws Exception {
        RosterCoalescer c = new RosterCoalescer();
        UUID m = UUID.randomUUID();
        for (int i = 0; i < 1000; i++) {
            c.add(m, "p" + i, RosterChange.patch(Map.of("state", "admitted", "display_name", "Guest " + i)));
        }
        Map<UUID, Map<String, RosterChange>> out = c.drain();
        assertThat(out).hasSize(1);
        JsonNode json = new ObjectMapper().readTree(RosterDeltaJson.encode(out.get(m)));
        assertThat(json.path("type").asText()).isEqualTo("roster_delta");
        assertThat(json.path("changes")).hasSize(1000);
        assertThat(json.path("changes").get(999).path("fields").path("display_name").asText()).isEqualTo("Guest 999");
        assertThat(json.path("changes").get(0).path("op").asText()).isEqualTo("patch");
    }

    /**
     * Property: for random rosters and random sequences of patches and removals over a few participants (so
     * merges of every kind happen), applying the merged delta gives exactly the roster that applying the changes
     * one by one gives; the delta has at most one change per participant.
     */
    @Test
    void mergedDeltasEqualApplyingThemOneByOne() {
        String[] keys = {"state", "display_name", "role", "hand"};
        for (long seed = 1; seed <= 2000; seed++) {
            Random rnd = new Random(seed);
            Map<String, Map<String, String>> start = new HashMap<>();
            int people = 1 + rnd.nextInt(6);
            for (int i = 0; i < people; i++) {
                if (rnd.nextBoolean()) start.put("p" + i, randomFields(rnd, keys));
            }
            Map<String, Map<String, String>> oneByOne = new HashMap<>(start);
            RosterCoalescer c = new RosterCoalescer();
            UUID m = UUID.randomUUID();
            int n = rnd.nextInt(20);
            List<String> touched = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String pid = "p" + rnd.nextInt(people);
                RosterChange change = rnd.nextInt(4) == 0 ? RosterChange.remove() : RosterChange.patch(randomFields(rnd, keys));
                RosterCoalescer.apply(oneByOne, Map.of(pid, change));
                c.add(m, pid, change);
                if (!touched.contains(pid)) touched.add(pid);
            }
            Map<String, Map<String, String>> merged = new HashMap<>(start);
            Map<String, RosterChange> delta = c.drain().getOrDefault(m, Map.of());
            RosterCoalescer.apply(merged, delta);
            assertThat(merged).as("seed %d", seed).isEqualTo(oneByOne);
            assertThat(delta.keySet()).as("seed %d: one change per participant, in first-change order", seed)
                    .containsExactlyElementsOf(touched);
        }
    }

    private static Map<String, String> randomFields(Random rnd, String[] keys) {
        Map<String, String> f = new HashMap<>();
        for (String k : keys) {
            if (rnd.nextInt(3) == 0) f.put(k, k + rnd.nextInt(3));
        }
        return f;
    }
}
