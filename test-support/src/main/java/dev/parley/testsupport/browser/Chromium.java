package dev.parley.testsupport.browser;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Playwright;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Launches the system's headless Chromium ({@code /usr/bin/chromium}) through Playwright for Java, with fake
 * camera and microphone, so tests can run real WebRTC in a real browser. Playwright never downloads a
 * browser here ({@code PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1}).
 *
 * <pre>{@code
 * try (Chromium chromium = Chromium.launch()) {
 *     BrowserContext ctx = chromium.newContext();   // camera + microphone granted
 *     Page page = ctx.newPage();
 *     page.navigate(server.url("/index.html"));
 * }
 * // TCP-only ICE, e.g. to prove ICE-TCP or TURN/TCP works:
 * Chromium.launch(Chromium.options().arg("--webrtc-ip-handling-policy=disable_non_proxied_udp"));
 * }</pre>
 */
public final class Chromium implements AutoCloseable {

    /** Default executable; override with {@code -Dparley.chromium.bin} or {@code PARLEY_CHROMIUM_BIN}. */
    public static final Path DEFAULT_EXECUTABLE = Path.of("/usr/bin/chromium");

    /** The flags every Parley browser test runs with (see COMMON.md). */
    public static final List<String> DEFAULT_ARGS = List.of(
            "--no-sandbox", // tests run as root in CI; the sandbox refuses to start as root
            "--headless=new",
            "--use-fake-device-for-media-stream",
            "--use-fake-ui-for-media-stream",
            "--allow-loopback-in-peer-connection",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-gpu");

    private final Playwright playwright;
    private final Browser browser;

    private Chromium(Playwright playwright, Browser browser) {
        this.playwright = playwright;
        this.browser = browser;
    }

    public static Options options() {
        return new Options();
    }

    /** Launches with {@link #DEFAULT_ARGS}. */
    public static Chromium launch() {
        return launch(options());
    }

    public static Chromium launch(Options options) {
        Path executable = executable();
        Map<String, String> env = Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1");
        Playwright playwright = Playwright.create(new Playwright.CreateOptions().setEnv(env));
        try {
            List<String> args = new ArrayList<>(DEFAULT_ARGS);
            args.addAll(options.extraArgs);
            Browser browser = playwright.chromium().launch(new BrowserType.LaunchOptions()
                    .setExecutablePath(executable)
                    .setHeadless(true)
                    .setChromiumSandbox(false)
                    .setArgs(args)
                    .setTimeout(60_000));
            return new Chromium(playwright, browser);
        } catch (RuntimeException e) {
            playwright.close();
            throw e;
        }
    }

    /** A new isolated context (own cookies/storage) with camera and microphone permission granted. */
    public BrowserContext newContext() {
        return browser.newContext(new Browser.NewContextOptions().setPermissions(List.of("camera", "microphone")));
    }

    public Browser browser() {
        return browser;
    }

    public Playwright playwright() {
        return playwright;
    }

    @Override
    public void close() {
        try {
            browser.close();
        } finally {
            playwright.close();
        }
    }

    static Path executable() {
        String configured = System.getProperty("parley.chromium.bin", System.getenv("PARLEY_CHROMIUM_BIN"));
        Path p = configured != null && !configured.isBlank() ? Path.of(configured) : DEFAULT_EXECUTABLE;
        if (!Files.isExecutable(p)) {
            throw new IllegalStateException("Chromium not found at " + p
                    + ": install it with `apt-get install chromium` (or set PARLEY_CHROMIUM_BIN)");
        }
        return p;
    }

    /** Launch options on top of {@link #DEFAULT_ARGS}. */
    public static final class Options {
        private final List<String> extraArgs = new ArrayList<>();

        private Options() {
        }

        /** An extra Chromium flag, e.g. {@code --force-fieldtrials=...}. */
        public Options arg(String flag) {
            extraArgs.add(flag);
            return this;
        }

        /** Forbid UDP for WebRTC unless proxied: ICE must use TCP candidates or TURN over TCP/TLS. */
        public Options tcpOnlyWebRtc() {
            return arg("--webrtc-ip-handling-policy=disable_non_proxied_udp")
                    .arg("--force-webrtc-ip-handling-policy");
        }

        /** Play a file as the fake camera (.y4m or .mjpeg), instead of Chromium's generated pattern. */
        public Options fakeVideoFile(Path file) {
            return arg("--use-file-for-fake-video-capture=" + file.toAbsolutePath());
        }

        /** Play a .wav file as the fake microphone. */
        public Options fakeAudioFile(Path file) {
            return arg("--use-file-for-fake-audio-capture=" + file.toAbsolutePath());
        }

        List<String> extraArgs() {
            return List.copyOf(extraArgs);
        }
    }
}
