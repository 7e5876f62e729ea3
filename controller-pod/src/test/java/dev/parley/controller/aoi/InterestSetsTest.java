package dev.parley.controller.aoi;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** Interest sets kept up to date move by move, against the brute-force model recomputing everyone every time. */
class InterestSetsTest {

    @Test
    void aMoveTellsTheMoverAndTheReceiversItEntersOrLeaves() {
        InterestSets sets = new InterestSets(new AoiSettings(10, 5));
        assertThat(sets.move("a", new Position(0, 0))).containsExactly(Map.entry("a", List.of()));
        assertThat(sets.move("b", new Position(3, 0))).containsOnly(Map.entry("a", List.of("b")), Map.entry("b", List.of("a")));
        assertThat(sets.move("c", new Position(50, 50))).containsOnly(Map.entry("c", List.of()));
        assertThat(sets.move("b", new Position(4, 0))).as("b moved but nobody's set changed").isEmpty();
        assertThat(sets.move("b", new Position(48, 50))).containsOnly(Map.entry("a", List.of()),
                Map.entry("b", List.of("c")), Map.entry("c", List.of("b")));
        assertThat(sets.remove("b")).containsOnly(Map.entry("c", List.of()));
        assertThat(sets.remove("b")).isEmpty();
    }

    @Test
    void theCapKeepsTheNearest() {
        InterestSets sets = new InterestSets(new AoiSettings(100, 2));
        sets.move("me", new Position(0, 0));
        sets.move("x", new Position(30, 0));
        sets.move("y", new Position(20, 0));
        sets.move("z", new Position(10, 0));
        assertThat(sets.of("me")).containsExactly("z", "y");
        // x comes closest: y drops out of me's set
        assertThat(sets.move("x", new Position(1, 0))).containsEntry("me", List.of("x", "z"));
    }

    /**
     * Property: after every random move or departure, each participant's set equals the brute-force answer
     * (nearest first, at most K), and exactly the receivers whose set changed (as a set) were reported.
     */
    @Test
    void everySetEqualsBruteForceAfterEveryMove() {
        for (long seed = 1; seed <= 200; seed++) {
            Random rnd = new Random(seed);
            AoiSettings s = new AoiSettings(1 + rnd.nextInt(40), 1 + rnd.nextInt(8));
            InterestSets sets = new InterestSets(s);
            BruteForceAoi model = new BruteForceAoi();
            Map<String, List<String>> known = new HashMap<>();
            int people = 2 + rnd.nextInt(40);
            for (int step = 0; step < 150; step++) {
                String id = "p" + rnd.nextInt(people);
                Map<String, List<String>> changed;
                if (rnd.nextInt(12) == 0) {
                    changed = sets.remove(id);
                    model.remove(id);
                    known.remove(id);
                } else {
                    Position p = new Position(5 * (rnd.nextInt(41) - 20), 5 * (rnd.nextInt(41) - 20));
                    changed = sets.move(id, p);
                    model.put(id, p.x(), p.y());
                }
                for (String r : model.at.keySet()) {
                    List<String> want = model.interestOf(r, s);
                    assertThat(sets.of(r)).as("seed %d step %d receiver %s", seed, step, r).isEqualTo(want)
                            .hasSizeLessThanOrEqualTo(s.maxParticipants());
                    List<String> before = known.put(r, want);
                    boolean differs = before == null || !new HashSet<>(before).equals(new HashSet<>(want));
                    assertThat(changed.containsKey(r)).as("seed %d step %d: %s reported iff changed", seed, step, r)
                            .isEqualTo(differs);
                }
            }
        }
    }
}
