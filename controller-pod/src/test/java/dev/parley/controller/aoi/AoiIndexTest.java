package dev.parley.controller.aoi;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The grid index: examples, then random positions and moves checked against the brute-force model. */
class AoiIndexTest {

    @Test
    void nearestFirstWithinTheRadiusCappedAndTiesById() {
        AoiIndex idx = new AoiIndex(10);
        idx.put("me", 0, 0);
        idx.put("b", 3, 4);      // 5
        idx.put("a", -5, 0);     // 5, same distance as b: a first
        idx.put("c", 1, 1);      // 1.41
        idx.put("far", 10.01, 0); // just outside
        idx.put("edge", 0, -10); // exactly on the radius: inside
        assertThat(idx.near(0, 0, 10, 10, "me")).containsExactly("c", "a", "b", "edge");
        assertThat(idx.near(0, 0, 10, 2, "me")).containsExactly("c", "a");
        assertThat(idx.near(0, 0, 10, 10, null)).containsExactly("me", "c", "a", "b", "edge");
    }

    @Test
    void movesAndRemovalsLeaveNoTrace() {
        AoiIndex idx = new AoiIndex(5);
        idx.put("p", 0, 0);
        idx.put("p", 100, 100);
        assertThat(idx.near(0, 0, 5, 10, null)).isEmpty();
        assertThat(idx.near(100, 100, 5, 10, null)).containsExactly("p");
        assertThat(idx.remove("p")).isTrue();
        assertThat(idx.remove("p")).isFalse();
        assertThat(idx.size()).isZero();
        assertThat(idx.near(100, 100, 5, 10, null)).isEmpty();
    }

    @Test
    void refusesANonsenseCellSize() {
        assertThatThrownBy(() -> new AoiIndex(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AoiIndex(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AoiIndex(Double.POSITIVE_INFINITY)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Property: for random positions, moves and removals (on a coarse lattice too, so ties and points exactly on
     * the radius or on cell borders are common), at random query points, radii and caps, the grid answers exactly
     * what the brute-force model answers, and never more than the cap.
     */
    @Test
    void equalsBruteForceOnRandomPositionsAndMoves() {
        for (long seed = 1; seed <= 300; seed++) {
            Random rnd = new Random(seed);
            double cell = 1 + rnd.nextInt(50);
            boolean lattice = rnd.nextBoolean();
            AoiIndex idx = new AoiIndex(cell);
            BruteForceAoi model = new BruteForceAoi();
            int people = 1 + rnd.nextInt(60);
            for (int step = 0; step < 200; step++) {
                String id = "p" + rnd.nextInt(people);
                if (rnd.nextInt(10) == 0) {
                    idx.remove(id);
                    model.remove(id);
                } else {
                    double x = coordinate(rnd, lattice), y = coordinate(rnd, lattice);
                    idx.put(id, x, y);
                    model.put(id, x, y);
                }
                double qx = coordinate(rnd, lattice), qy = coordinate(rnd, lattice);
                double radius = lattice ? 1 + rnd.nextInt(60) : 1 + rnd.nextDouble() * 80;
                int cap = 1 + rnd.nextInt(12);
                String exclude = rnd.nextBoolean() ? id : null;
                List<String> got = idx.near(qx, qy, radius, cap, exclude);
                assertThat(got).as("seed %d step %d", seed, step)
                        .isEqualTo(model.near(qx, qy, radius, cap, exclude))
                        .hasSizeLessThanOrEqualTo(cap);
            }
            assertThat(idx.size()).isEqualTo(model.at.size());
        }
    }

    private static double coordinate(Random rnd, boolean lattice) {
        return lattice ? 5 * (rnd.nextInt(41) - 20) : (rnd.nextDouble() - 0.5) * 200;
    }
}
