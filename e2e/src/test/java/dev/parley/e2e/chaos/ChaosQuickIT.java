package dev.parley.e2e.chaos;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The chaos suite in quick mode, in the default suite: the whole platform from real processes, two Chromium
 * participants and the load client; SFU kill -9, owner controller kill -9, etcd leader kill, PostgreSQL restart and
 * loss + delay on the media path, once each, with every invariant checked every ~250 ms. Fails on any violation.
 * {@code bench/chaos/run.sh --quick} runs this; {@code bench/chaos/README.md} explains the figures.
 *
 * <p>In the default suite since its first clean quick run (7/7 invariants held, bench/chaos/README.md). It runs
 * unless {@code -Dchaos.mode} names another mode ({@code full} runs {@link ChaosSuiteIT} alone) or {@code off}.
 */
class ChaosQuickIT {
    @Test
    void quickFaultsHoldEveryInvariant() throws Exception {
        String mode = System.getProperty("chaos.mode", "quick");
        assumeTrue("quick".equals(mode), "quick chaos run skipped: -Dchaos.mode=" + mode);
        String missing = ChaosPlatform.missing();
        assumeTrue(missing == null, missing);
        ChaosRun.Result r = ChaosRun.runAndPrint(false, Path.of("target", "chaos"));
        assertThat(r.checked()).as("invariants checked").isGreaterThanOrEqualTo(6);
        assertThat(r.held()).as(r.report()).isEqualTo(r.checked());
    }
}
