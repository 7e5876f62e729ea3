package dev.parley.testsupport.browser;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One headless Chromium per test class; each test method that asks for a {@link BrowserContext} or
 * {@link Page} parameter gets a fresh context (camera + microphone granted) closed after the test.
 * <pre>{@code
 * @RegisterExtension
 * static ChromiumExtension chromium = new ChromiumExtension();          // or new ChromiumExtension(Chromium.options().tcpOnlyWebRtc())
 *
 * @Test
 * void joins(Page page) { page.navigate(server.url("/join.html")); ... }
 * }</pre>
 */
public class ChromiumExtension implements BeforeAllCallback, AfterAllCallback, AfterEachCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(ChromiumExtension.class);

    private final Chromium.Options options;
    private volatile Chromium chromium;

    public ChromiumExtension() {
        this(Chromium.options());
    }

    public ChromiumExtension(Chromium.Options options) {
        this.options = options;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        chromium = Chromium.launch(options);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Chromium c = chromium;
        chromium = null;
        if (c != null) {
            c.close();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        BrowserContext ctx = context.getStore(NS).remove("context", BrowserContext.class);
        if (ctx != null) {
            ctx.close();
        }
    }

    /** The running launcher, e.g. to open several contexts (one per simulated participant). */
    public Chromium chromium() {
        Chromium c = chromium;
        if (c == null) {
            throw new IllegalStateException("Chromium is not running: register ChromiumExtension on a static field");
        }
        return c;
    }

    /** A new context with camera + microphone; the caller closes it. */
    public BrowserContext newContext() {
        return chromium().newContext();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        return type == Browser.class || type == BrowserContext.class || type == Page.class || type == Chromium.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        if (type == Chromium.class) {
            return chromium();
        }
        if (type == Browser.class) {
            return chromium().browser();
        }
        BrowserContext ctx = extensionContext.getStore(NS)
                .getOrComputeIfAbsent("context", k -> chromium().newContext(), BrowserContext.class);
        if (type == BrowserContext.class) {
            return ctx;
        }
        return ctx.pages().isEmpty() ? ctx.newPage() : ctx.pages().get(0);
    }
}
