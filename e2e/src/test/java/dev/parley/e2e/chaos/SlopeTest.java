package dev.parley.e2e.chaos;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The soak's judgement: a leak (steady growth) is not flat, noise around a level is, and heap_info parses. */
class SlopeTest {
    private static List<double[]> series(double perMinute, double noise, long seed) {
        Random r = new Random(seed);
        List<double[]> out = new ArrayList<>();
        for (int i = 0; i < 60; i++) out.add(new double[] {i * 60.0, 100 + perMinute * i + noise * r.nextGaussian()});
        return out;
    }

    @Test
    void aSteadyGrowthIsFoundAndJudgedALeak() {
        Slope s = Slope.of(series(1, 0, 1)); // one fd a minute
        assertThat(s.perHour()).isCloseTo(60, within(1e-6));
        assertThat(s.changeOverSpan()).isCloseTo(59, within(1e-6));
        assertThat(s.flat(8)).isFalse();
    }

    @Test
    void noiseAroundALevelIsFlat() {
        Slope s = Slope.of(series(0, 2, 7));
        assertThat(s.residualSd()).isBetween(1.0, 3.0);
        assertThat(s.flat(8)).isTrue();
    }

    @Test
    void shrinkingIsNeverALeak() {
        assertThat(Slope.of(series(-5, 0, 3)).flat(0)).isTrue();
    }

    @Test
    void theBoundIsTheFloorOrFivePercentOfTheMean() {
        Slope s = Slope.of(series(0, 0, 1));
        assertThat(s.bound(2)).isCloseTo(5.0, within(1e-9));
        assertThat(s.bound(8)).isEqualTo(8);
    }

    @Test
    void heapInfoOfSerialAndG1SumsGenerationsWithoutMetaspace() {
        String serial = """
            12345:
             def new generation   total 9792K, used 1024K [0x00000000e0000000, 0x00000000e0aa0000)
              eden space 8704K,  11% used [0x00000000e0000000, 0x00000000e0100000)
             tenured generation   total 21888K, used 2048K [0x00000000e5550000, 0x00000000e6ab0000)
             Metaspace       used 50207K, committed 50816K, reserved 1114112K
              class space    used 6000K, committed 6272K, reserved 1048576K
            """;
        assertThat(ProcessSample.heapUsed(serial)).isEqualTo(3072L * 1024);
        String g1 = """
             garbage-first heap   total 262144K, used 53421K [0x00000000f0000000, 0x0000000100000000)
              region size 1024K, 3 young (3072K), 0 survivors (0K)
             Metaspace       used 1000K, committed 1100K, reserved 1114112K
            """;
        assertThat(ProcessSample.heapUsed(g1)).isEqualTo(53421L * 1024);
        assertThat(ProcessSample.heapUsed("no heap here")).isEqualTo(-1);
    }
}
