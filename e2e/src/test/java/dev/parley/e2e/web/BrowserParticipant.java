package dev.parley.e2e.web;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;

import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * One person in headless Chromium using the real web app served by the controller (its SDK at /sdk):
 * sign in, create or join a meeting, and read the SDK's receive statistics.
 */
public final class BrowserParticipant implements AutoCloseable {
    public final String name;
    final BrowserContext ctx;
    public final Page page;

    BrowserParticipant(Browser browser, String baseUrl, String name) {
        this(browser, baseUrl, name, null);
    }

    /**
     * With {@code initScript} (may be null) run in every page of this participant before the app's own scripts; the
     * chaos suite (dev.parley.e2e.chaos) uses it to point the SFU's candidate at its impairment proxy.
     */
    public BrowserParticipant(Browser browser, String baseUrl, String name, String initScript) {
        this.name = name;
        this.ctx = browser.newContext(new Browser.NewContextOptions().setViewportSize(1280, 720)
                .setPermissions(List.of("camera", "microphone")));
        if (initScript != null) {
            ctx.addInitScript(initScript);
        }
        this.page = ctx.newPage();
        page.onDialog(d -> d.accept());
        page.onConsoleMessage(m -> System.out.println("[" + name + " " + m.type() + "] " + m.text()));
        page.onPageError(e -> System.out.println("[" + name + " pageerror] " + e));
        page.navigate(baseUrl + "/");
    }

    void signIn() {
        page.waitForSelector("[data-testid=signin-name]", new Page.WaitForSelectorOptions().setTimeout(15000));
        page.fill("[data-testid=signin-name]", name);
        page.click("[data-testid=signin-submit]");
    }

    /** Creates a meeting without waiting room and joins it; returns the share link. */
    public String createAndJoin(String title) {
        signIn();
        page.fill("[data-testid=create-title]", title);
        page.uncheck("[data-testid=create-waiting-room]"); // checked by default
        page.click("[data-testid=create-submit]");
        String link = page.inputValue("[data-testid=share-link]");
        page.click("[data-testid=share-join]");
        page.click("[data-testid=prejoin-join]");
        page.waitForSelector("[data-testid=meeting]", new Page.WaitForSelectorOptions().setTimeout(20000));
        return link;
    }

    public void join(String link) {
        page.navigate(link);
        signIn();
        page.click("[data-testid=prejoin-join]");
        page.waitForSelector("[data-testid=meeting]", new Page.WaitForSelectorOptions().setTimeout(20000));
    }

    public void awaitConnected(Duration timeout) {
        try {
            awaitTrue(() -> "connected".equals(page.evaluate("() => window.parleyApp?.client?.state.connection")), timeout,
                    name + " connected");
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\n" + name + ": " + page.evaluate("() => { const c = window.parleyApp?.client;"
                    + " return c ? JSON.stringify({ connection: c.state.connection, reason: c.state.connectionReason,"
                    + " admission: c.state.admission, gen: c.state.transportGeneration, notices: c.state.notices }) : 'no client'; }"), e);
        }
    }

    public String pid() {
        return String.valueOf(page.evaluate("() => window.parleyApp?.client?.state.self.participant_id ?? null"));
    }

    long transportGeneration() {
        return ((Number) page.evaluate("() => window.parleyApp.client.state.transportGeneration")).longValue();
    }

    /** Reasons of the SDK's transport generation switches so far, oldest first. */
    List<String> generationReasons() {
        return ((List<?>) page.evaluate("() => window.parleyApp.client.metrics.generations.map(g => g.reason)")).stream().map(String::valueOf).toList();
    }

    /** framesDecoded of {@code pid}'s camera at this receiver (0 when not received). */
    double framesFrom(String pid) {
        Object r = page.evaluate("async (pid) => { const c = window.parleyApp.client; if (!c.media) return 0;"
                + " const t = (await c.media.stats()).tracks.find(t => t.participantId === pid && t.source === 'camera');"
                + " return t ? t.framesDecoded : 0; }", pid);
        return r instanceof Number n ? n.doubleValue() : 0;
    }

    /** Waits until {@code pid}'s camera frames decoded here grow over a short window. */
    void awaitVideoFrom(String pid, Duration timeout) {
        awaitTrue(() -> {
            double a = framesFrom(pid);
            sleep(500);
            return framesFrom(pid) > a;
        }, timeout, name + " decodes video of " + pid);
    }

    public String diagnostics() {
        try {
            return String.valueOf(page.evaluate("async () => { const c = window.parleyApp?.client; if (!c) return 'no client';"
                    + " return JSON.stringify({ self: c.state.self.participant_id, connection: c.state.connection,"
                    + " gen: c.state.transportGeneration, generations: c.metrics.generations,"
                    + " stats: c.media ? (await c.media.stats()).tracks.map(t => [t.participantId, t.source, t.framesDecoded]) : null }); }"));
        } catch (RuntimeException e) {
            return "(no diagnostics: " + e.getMessage() + ")";
        }
    }

    static void awaitTrue(BooleanSupplier cond, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (cond.getAsBoolean()) {
                return;
            }
            sleep(200);
        }
        fail("timed out after " + timeout.toMillis() + " ms waiting for: " + what);
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        ctx.close();
    }
}
