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
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The SDK's end-to-end encryption tested inside real headless Chromium (e2ee-tests.js): the SFrame header, frame
 * encryption (clear bytes, counter uniqueness, tag failures dropped and counted, the key overlap), a fuzz run of
 * the frame parser, the key schedule (a late joiner cannot read earlier frames; after a removal the removed device
 * reads nothing new) and both encoded-transform paths on real peer connections (with the key the video decodes,
 * without it packets arrive and 0 frames decode). Each in-page test is one JUnit test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class E2eeInPageIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private StaticSite site;
    private Playwright pw;
    private Browser browser;

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

    @TestFactory
    List<DynamicTest> e2eeTestsInChromium() throws Exception {
        BrowserContext ctx = browser.newContext();
        Page page = ctx.newPage();
        List<String> errors = new ArrayList<>();
        page.onPageError(e -> errors.add("pageerror: " + e));
        page.navigate(site.url() + "/__test__/e2ee-harness.html");
        page.waitForFunction("() => window.harnessReady === true");
        JsonNode results = JSON.readTree((String) page.evaluate("async () => JSON.stringify(await window.runTests())"));
        ctx.close();
        assertThat(errors).isEmpty();
        assertThat(results.size()).as("in-page tests found").isGreaterThanOrEqualTo(15);
        List<DynamicTest> out = new ArrayList<>();
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
}
