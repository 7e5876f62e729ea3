package dev.parley.e2e.web;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The app's main screens at laptop (1366x800) and phone (390x844) widths, in headless Chromium:
 * screenshots saved to {@code e2e/target/screenshots/}, and checks that can fail: no script errors, no
 * horizontal overflow, every control has an accessible name, the controls bar is on screen, and the
 * screen's key element is visible. The in-meeting screens are rendered from state built by the SDK's
 * reducer (PlatformE2EIT takes them against the real platform).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebScreensIT {
    static final Path SHOTS = Paths.get("target", "screenshots");
    private StaticSite site;
    private Playwright pw;
    private Browser browser;

    @BeforeAll
    void start() throws Exception {
        assumeTrue(Chromium.available(), "chromium not installed at " + Chromium.EXECUTABLE);
        Files.createDirectories(SHOTS);
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

    static Stream<Arguments> screens() {
        String[][] s = {
            {"signin", "[data-testid=signin-submit]"},
            {"home", "[data-testid=create-submit]"},
            {"share", "[data-testid=share-link]"},
            {"prejoin", "[data-testid=prejoin-join]"},
            {"waiting", "[data-testid=waiting-room]"},
            {"removed", "[data-testid=end-reason]"},
            {"meeting-grid", "[data-testid=mic-toggle]"},
            {"meeting-speaker", "[data-testid=tile-p1-camera].speaking"},
            {"meeting-screen", "[data-testid=tile-p2-screen]"},
            {"meeting-host-panel", "[data-testid=admit]"},
            {"meeting-hands", "[data-testid=hand-p4] [data-testid=allow-speak]"},
            {"meeting-reconnecting", "[data-testid=connection-banner].show"},
            {"meeting-unmute", "[data-testid=unmute-accept]"},
        };
        List<Arguments> out = new ArrayList<>();
        for (String[] x : s) {
            out.add(Arguments.of(x[0], x[1], "laptop", 1366, 800));
            out.add(Arguments.of(x[0], x[1], "phone", 390, 844));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} at {2}")
    @MethodSource("screens")
    void screen(String name, String keySelector, String device, int width, int height) throws Exception {
        BrowserContext ctx = browser.newContext(new Browser.NewContextOptions()
            .setViewportSize(width, height)
            .setDeviceScaleFactor(1)
            .setPermissions(List.of("camera", "microphone")));
        try {
            Page page = ctx.newPage();
            List<String> errors = new ArrayList<>();
            page.onPageError(e -> errors.add(String.valueOf(e)));
            page.onConsoleMessage(m -> {
                if ("error".equals(m.type())) errors.add(m.text());
            });
            page.navigate(site.url() + "/__test__/screens.html?screen=" + name);
            page.waitForFunction("() => window.screenReady === true");
            assertThat(page.evaluate("() => window.screenError || null")).as("render error").isNull();
            page.waitForSelector(keySelector, new Page.WaitForSelectorOptions().setTimeout(5000));
            if (name.startsWith("meeting") || name.equals("prejoin")) {
                // let the fake camera deliver frames into the tiles
                page.waitForFunction("() => [...document.querySelectorAll('video')].filter(v => !v.hidden).every(v => v.readyState >= 2)");
            }
            page.waitForTimeout(300);
            page.screenshot(new Page.ScreenshotOptions().setPath(SHOTS.resolve(name + "-" + device + ".png")));

            assertThat(errors).as("script errors").isEmpty();
            if (name.equals("meeting-hands")) {
                Object order = page.evaluate("() => [...document.querySelectorAll('[data-testid=hand-queue] li')].map(li => li.dataset.testid).join(',')");
                assertThat(order).as("the raise-hand queue, first raised first").isEqualTo("hand-p4,hand-p2");
            }
            Object overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth");
            assertThat(((Number) overflow).intValue()).as("horizontal overflow in px").isLessThanOrEqualTo(0);
            Object unnamed = page.evaluate(UNNAMED_CONTROLS);
            assertThat(String.valueOf(unnamed)).as("controls without an accessible name").isEmpty();
            if (name.startsWith("meeting")) {
                Object ctl = page.evaluate("() => { const r = document.querySelector('.controls').getBoundingClientRect(); return r.bottom <= innerHeight + 1 && r.top >= 0; }");
                assertThat(ctl).as("controls bar inside the viewport").isEqualTo(true);
                Object mic = page.evaluate("() => { const r = document.querySelector('[data-testid=mic-toggle]').getBoundingClientRect(); return r.right <= innerWidth && r.width > 30; }");
                assertThat(mic).as("microphone button visible without scrolling").isEqualTo(true);
            }
        } finally {
            ctx.close();
        }
    }

    /** Keyboard reachability: Tab from the top reaches the microphone button in the meeting screen. */
    @Test
    void keyboardReachesMeetingControls() {
        BrowserContext ctx = browser.newContext(new Browser.NewContextOptions().setViewportSize(1366, 800).setPermissions(List.of("camera", "microphone")));
        try {
            Page page = ctx.newPage();
            page.navigate(site.url() + "/__test__/screens.html?screen=meeting-grid");
            page.waitForFunction("() => window.screenReady === true");
            boolean reached = false;
            for (int i = 0; i < 40 && !reached; i++) {
                page.keyboard().press("Tab");
                reached = Boolean.TRUE.equals(page.evaluate("() => document.activeElement?.dataset?.testid === 'mic-toggle'"));
            }
            assertThat(reached).as("mic button reachable with Tab").isTrue();
        } finally {
            ctx.close();
        }
    }

    /** Lists visible buttons, inputs, selects and summaries that have no accessible name. */
    static final String UNNAMED_CONTROLS = """
        () => {
          const out = [];
          for (const el of document.querySelectorAll('button, input, select, summary, [role=button]')) {
            if (el.offsetParent === null && getComputedStyle(el).position !== 'fixed') continue;
            const name = (el.getAttribute('aria-label') || '').trim()
              || (el.getAttribute('aria-labelledby') && document.getElementById(el.getAttribute('aria-labelledby'))?.textContent.trim())
              || (el.labels && el.labels.length ? [...el.labels].map(l => l.textContent).join(' ').trim() : '')
              || (el.tagName !== 'INPUT' && el.tagName !== 'SELECT' ? el.textContent.trim() : '')
              || (el.getAttribute('title') || '').trim();
            if (!name) out.push(el.outerHTML.slice(0, 120));
          }
          return out.join('\\n');
        }""";
}
