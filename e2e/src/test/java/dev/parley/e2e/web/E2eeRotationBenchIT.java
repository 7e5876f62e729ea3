package dev.parley.e2e.web;

import com.microsoft.playwright.Page;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The e2ee rotation-time benchmark (bench/e2ee/README.md): 10 and 50 participants' key management (the SDK's
 * E2eeSession) in one headless Chromium page against the real controller; the host removes one participant and the
 * time until every remaining sender uses a new key (and until every remaining member holds it) is printed as p50 /
 * p95. A benchmark, not a suite test: it runs only with {@code -Dparley.bench.e2ee=true} (bench/e2ee/run.sh).
 */
class E2eeRotationBenchIT {
    @RegisterExtension
    static final BrowserPlatform<LocalPlatform> env = BrowserPlatform.of(() -> LocalPlatform.missing(1), () -> LocalPlatform.start(1));

    @Test
    void rotationTimeAfterARemovalWith10And50Participants() throws Exception {
        assumeTrue(Boolean.getBoolean("parley.bench.e2ee"), "a benchmark: run with -Dparley.bench.e2ee=true");
        String script = Files.readString(Path.of("src/test/resources/web/e2ee-rotation-bench.js"));
        try (BrowserParticipant runner = new BrowserParticipant(env.browser(), env.platform().baseUrl(), "bench", null)) {
            Page page = runner.page;
            // the module runs on the controller's origin (REST and signaling of the real controller)
            page.evaluate("(src) => { const u = URL.createObjectURL(new Blob([src], { type: 'text/javascript' })); window.__benchUrl = u; }",
                    script.replace("from '/sdk/", "from '" + env.platform().baseUrl() + "/sdk/"));
            for (int n : new int[]{10, 50}) {
                Object r = page.evaluate("async (n) => JSON.stringify(await (await import(window.__benchUrl)).bench({ n }))", n);
                System.out.println("e2ee rotation bench: " + r);
                assertThat(String.valueOf(r)).contains("\"removedGotNewKeys\":0");
            }
        }
    }
}
