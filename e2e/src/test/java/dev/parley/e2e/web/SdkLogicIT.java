package dev.parley.e2e.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Runs the pure-logic tests of the browser SDK (backoff, problem parsing, idempotency keys on retries,
 * cursors, offline command expiry/no-replay, the connection state machine, the event reducer, local
 * enforcement of a revoked microphone, slot mapping, signaling resume) inside real headless Chromium.
 * Each in-page test becomes one JUnit test; a failed in-page assertion fails it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SdkLogicIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private StaticSite site;
    private Playwright pw;
    private Browser browser;
    private final List<String> consoleErrors = new ArrayList<>();

    @BeforeAll
    void start() throws Exception {
        assumeTrue(Chromium.available(), "chromium not installed at " + Chromium.EXECUTABLE);
        site = new StaticSite();
        pw = Playwright.create();
        browser = Chromium.launch(pw);
    }

    @AfterAll
    void stop() {
        if (browser != null) browser.close();
        if (pw != null) pw.close();
        if (site != null) site.close();
    }

    private Page harness() {
        BrowserContext ctx = browser.newContext(new Browser.NewContextOptions().setPermissions(List.of("camera", "microphone")));
        Page page = ctx.newPage();
        page.onConsoleMessage(m -> {
            if ("error".equals(m.type())) consoleErrors.add(m.text());
        });
        page.onPageError(e -> consoleErrors.add("pageerror: " + e));
        page.navigate(site.url() + "/__test__/harness.html");
        page.waitForFunction("() => window.harnessReady === true");
        return page;
    }

    @TestFactory
    List<DynamicTest> sdkTestsInChromium() throws Exception {
        Page page = harness();
        Object raw = page.evaluate("async () => JSON.stringify(await window.runTests())");
        JsonNode results = JSON.readTree((String) raw);
        page.context().close();
        List<DynamicTest> out = new ArrayList<>();
        assertThat(results.size()).as("in-page tests found").isGreaterThanOrEqualTo(15);
        for (JsonNode r : results) {
            String name = r.get("name").asText();
            boolean ok = r.get("ok").asBoolean();
            String error = r.path("error").asText("");
            out.add(DynamicTest.dynamicTest(name + " (" + r.get("ms").asInt() + " ms)", () -> {
                if (!ok) fail(name + " failed in Chromium:\n" + error);
            }));
        }
        return out;
    }

    /** The harness must be able to fail: deliberately wrong assertions are reported as failures. */
    @Test
    void harnessReportsFailures() throws Exception {
        Page page = harness();
        JsonNode results = JSON.readTree((String) page.evaluate("async () => JSON.stringify(await window.runSelfCheck())"));
        page.context().close();
        assertThat(results).hasSize(2);
        for (JsonNode r : results) {
            assertThat(r.get("ok").asBoolean()).as(r.get("name").asText()).isFalse();
        }
        assertThat(results.get(0).get("error").asText()).contains("expected 3, got 2");
        assertThat(results.get(1).get("error").asText()).contains("timeout");
    }

    /** Every SDK and app module loads in the browser without syntax or import errors. */
    @Test
    void allModulesLoad() {
        BrowserContext ctx = browser.newContext();
        Page page = ctx.newPage();
        List<String> errors = new ArrayList<>();
        page.onPageError(e -> errors.add(String.valueOf(e)));
        page.navigate(site.url() + "/__test__/harness.html");
        Object loaded = page.evaluate("""
            async () => {
              const mods = ['/sdk/parley-client.js', '/sdk/api.js', '/sdk/signaling.js', '/sdk/media.js', '/sdk/state.js',
                '/sdk/cursor.js', '/sdk/command-queue.js', '/sdk/slots.js', '/sdk/backoff.js', '/sdk/problem.js', '/sdk/quality.js',
                '/app/dom.js', '/app/screens.js', '/app/meeting-view.js', '/app/session.js', '/app/devices.js'];
              const out = [];
              for (const m of mods) { try { await import(m); out.push(m + ':ok'); } catch (e) { out.push(m + ':' + e); } }
              return out.join('\\n');
            }""");
        ctx.close();
        assertThat(String.valueOf(loaded).lines()).allMatch(l -> l.endsWith(":ok"));
        assertThat(errors).isEmpty();
    }
}
