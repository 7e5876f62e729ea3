package dev.parley.e2e.web;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.Playwright;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.function.Supplier;

/**
 * A running platform (the real pod jars: {@link LocalPlatform} or {@link RelayPlatform}) and one headless Chromium for
 * a browser test class, as a JUnit extension:
 * <pre>{@code @RegisterExtension
 * static final BrowserPlatform<LocalPlatform> env = BrowserPlatform.of(() -> LocalPlatform.missing(1), () -> LocalPlatform.start(1));}</pre>
 * Started before the class's own {@code @BeforeAll} methods, closed after its {@code @AfterAll} ones. When the machine
 * lacks a binary (etcd, chromium, a pod jar) nothing starts and every test is skipped with the reason.
 */
final class BrowserPlatform<P extends AutoCloseable> implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {
    /** Starts the platform; may throw, which fails the class. */
    interface Starter<P> {
        P start() throws Exception;
    }

    private final Supplier<String> missing;
    private final Starter<P> starter;
    private String skipReason;
    private P platform;
    private Playwright pw;
    private Browser browser;

    private BrowserPlatform(Supplier<String> missing, Starter<P> starter) {
        this.missing = missing;
        this.starter = starter;
    }

    /** {@code missing} names what the machine lacks (null when nothing); {@code starter} starts the platform. */
    static <P extends AutoCloseable> BrowserPlatform<P> of(Supplier<String> missing, Starter<P> starter) {
        return new BrowserPlatform<>(missing, starter);
    }

    P platform() {
        return platform;
    }

    Browser browser() {
        return browser;
    }

    /** Null when the platform runs; else why the class's tests are skipped. */
    String skipReason() {
        return skipReason;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        skipReason = missing.get();
        if (skipReason != null) {
            System.out.println(context.getDisplayName() + " skipped: " + skipReason);
            return;
        }
        platform = starter.start();
        pw = Playwright.create();
        browser = Chromium.launch(pw);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        Assumptions.assumeTrue(skipReason == null, skipReason);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (browser != null) browser.close();
        if (pw != null) pw.close();
        if (platform != null) platform.close();
    }
}
