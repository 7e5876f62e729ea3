package dev.parley.sfu.routing;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The spatial layer a VP9 SVC slot gets from its tile size and its share of the subscriber's budget. */
class SvcSelectionTest {
    /** A stream whose SS announced 320×180, 640×360, 1280×720 at 150 k, 450 k, 1 M bps per layer. */
    private static SvcStream l3() {
        SvcStream st = new SvcStream();
        st.spatialLayers = 3;
        int[][] sizes = {{320, 180}, {640, 360}, {1280, 720}};
        for (int s = 0; s < 3; s++) { st.width[s] = sizes[s][0]; st.height[s] = sizes[s][1]; }
        st.topSpatial = 2;
        st.spatialBps[0] = 150_000;
        st.spatialBps[1] = 450_000;
        st.spatialBps[2] = 1_000_000;
        return st;
    }

    @Test
    void tileSizePicksTheLargestLayerThatFits() {
        SvcStream st = l3();
        assertThat(SvcSelection.spatialForTile(st, 1280, 720)).isEqualTo(2);
        assertThat(SvcSelection.spatialForTile(st, 1920, 1080)).isEqualTo(2);
        assertThat(SvcSelection.spatialForTile(st, 640, 480)).isEqualTo(1);
        assertThat(SvcSelection.spatialForTile(st, 639, 480)).isEqualTo(0);
        assertThat(SvcSelection.spatialForTile(st, 100, 100)).isZero();          // nothing fits: the smallest
        // before any SS: everything the stream carries (nothing seen: every layer)
        SvcStream fresh = new SvcStream();
        assertThat(SvcSelection.spatialForTile(fresh, 320, 180)).isEqualTo(SvcFilter.ALL);
        fresh.topSpatial = 1;
        assertThat(SvcSelection.spatialForTile(fresh, 320, 180)).isEqualTo(1);
    }

    @Test
    void budgetCapsTheLayerWithHeadroomToClimb() {
        SvcStream st = l3();
        assertThat(st.costUpTo(2)).isEqualTo(1_600_000);
        assertThat(SvcSelection.choose(st, 1280, 720, Long.MAX_VALUE, 0)).isEqualTo(2);     // no congestion control
        assertThat(SvcSelection.choose(st, 1280, 720, 1_600_000, 2)).isEqualTo(2);          // staying: fits exactly
        assertThat(SvcSelection.choose(st, 1280, 720, 1_600_000, 1)).isEqualTo(1);          // climbing: needs 2 M
        assertThat(SvcSelection.choose(st, 1280, 720, 2_000_000, 1)).isEqualTo(2);
        assertThat(SvcSelection.choose(st, 1280, 720, 700_000, 2)).isEqualTo(1);
        assertThat(SvcSelection.choose(st, 1280, 720, 100_000, 2)).isZero();                // the base layer always
        assertThat(SvcSelection.choose(st, 320, 180, 10_000_000, 0)).isZero();              // the tile, not the budget
    }

    @Test
    void frameRateLimitPicksTheLowestTemporalLayerThatReachesIt() {
        SvcStream st = l3();
        assertThat(st.temporalForFps(15)).isEqualTo(SvcFilter.ALL);               // nothing measured yet
        st.topTemporal = 2;
        st.temporalFps[0] = 7.5;
        st.temporalFps[1] = 15;
        st.temporalFps[2] = 30;
        assertThat(st.temporalForFps(0)).isEqualTo(SvcFilter.ALL);                // no limit
        assertThat(st.temporalForFps(7)).isZero();
        assertThat(st.temporalForFps(8)).isZero();                                // 7.5 is within 10 % of 8
        assertThat(st.temporalForFps(15)).isEqualTo(1);
        assertThat(st.temporalForFps(24)).isEqualTo(SvcFilter.ALL);
        assertThat(st.temporalForFps(60)).isEqualTo(SvcFilter.ALL);
    }
}
