package dev.parley.e2e.chaos;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The soak ({@link SoakRun}): only with {@code -Dsoak.minutes=N} ({@code bench/soak/run.sh} passes it), never in
 * the default suite. Fails when a judged series is not flat, when errors were counted, or when the platform's
 * resources are not back at their baseline after every meeting ended.
 */
class SoakIT {
    @Test
    void footprintStaysFlatAndNothingLeaks() throws Exception {
        String minutes = System.getProperty("soak.minutes");
        assumeTrue(minutes != null && !minutes.isBlank(), "soak only with -Dsoak.minutes=N");
        String missing = ChaosPlatform.missing();
        assumeTrue(missing == null, missing);
        double m = Double.parseDouble(minutes);
        SoakRun.Settings s = new SoakRun.Settings(Duration.ofSeconds((long) (m * 60)),
            Duration.ofSeconds(Long.getLong("soak.sampleSeconds", m >= 30 ? 60 : 15)),
            Duration.ofSeconds(Long.getLong("soak.churnSeconds", m >= 30 ? 120 : 30)),
            Integer.getInteger("soak.meetings", 3), Integer.getInteger("soak.size", 3));
        try (SoakRun run = new SoakRun(s, Path.of("target", "soak"))) {
            SoakRun.Result r = run.execute();
            System.out.println(r.report());
            System.out.println(r.lastLine());
            assertThat(r.judged()).as("series judged").isPositive();
            assertThat(r.flat()).as(r.report()).isEqualTo(r.judged());
            assertThat(r.backToBaseline()).as(r.report()).isTrue();
            assertThat(r.errors()).as(r.report()).isZero();
        }
    }
}
