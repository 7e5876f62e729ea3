package dev.parley.e2e.chaos;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The full chaos run ({@code -Dchaos.mode=full}, skipped otherwise): every fault of bench/chaos/README.md
 * {@code chaos.trials} times (default 2), plus an s3proxy outage during a recording. About 15–20 minutes on the
 * shared 2-core machine; {@code bench/chaos/run.sh} runs it.
 */
class ChaosSuiteIT {
    @Test
    void everyFaultHoldsEveryInvariant() throws Exception {
        assumeTrue("full".equals(System.getProperty("chaos.mode")), "full chaos run only with -Dchaos.mode=full");
        String missing = ChaosPlatform.missing();
        assumeTrue(missing == null, missing);
        ChaosRun.Result r = ChaosRun.runAndPrint(true, Path.of("target", "chaos"));
        assertThat(r.held()).as(r.report()).isEqualTo(r.checked());
    }
}
