package dev.parley.controller.cors;

import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.Page;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.testsupport.browser.ChromiumExtension;
import dev.parley.testsupport.web.StaticServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SDK used by an app on another origin: the example page ({@code public/examples/embed.html}) is served
 * by a static server on {@code http://localhost:P1}, the controller runs on {@code http://127.0.0.1:P2}
 * with {@code PARLEY_CORS_ALLOWED_ORIGINS} naming the page's origin. The page imports the SDK by URL from
 * the controller, signs in, creates a meeting, joins it over REST and reaches {@code joined} on the
 * signaling socket. The same page from an origin not in the list is refused by the browser's CORS check.
 * Controller 0 runs with the default configuration (CORS off).
 */
class CrossOriginSdkIT {
    static final StaticServer ALLOWED_SITE = StaticServer.ofClasspath("public/examples");
    static final StaticServer OTHER_SITE = StaticServer.ofClasspath("public/examples");
    static final String ALLOWED = "http://localhost:" + ALLOWED_SITE.port();
    static final String OTHER = "http://localhost:" + OTHER_SITE.port();

    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");
    @RegisterExtension
    static final ChromiumExtension chromium = new ChromiumExtension();

    static String corsController;

    @BeforeAll
    static void startCorsController() throws Exception {
        h.startController("controller-cors", Map.of("PARLEY_CORS_ALLOWED_ORIGINS", ALLOWED + ", https://app.example.org"));
        corsController = h.base(1);
    }

    @AfterAll
    static void stopSites() {
        ALLOWED_SITE.close();
        OTHER_SITE.close();
    }

    @Test
    void preflightFromAnAllowedOriginAllowsBearerAndIdempotencyKey() throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(corsController + "/v1/meetings"))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .header("Origin", ALLOWED)
                .header("Access-Control-Request-Method", "POST")
                .header("Access-Control-Request-Headers", "authorization,content-type,idempotency-key"));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Access-Control-Allow-Origin")).hasValue(ALLOWED);
        assertThat(String.join(",", r.headers().allValues("Access-Control-Allow-Headers")).toLowerCase())
                .contains("authorization").contains("idempotency-key").contains("content-type");
        assertThat(String.join(",", r.headers().allValues("Access-Control-Allow-Methods"))).contains("POST");
        assertThat(r.headers().firstValue("Access-Control-Allow-Credentials")).isEmpty();
    }

    @Test
    void problemAnswersCarryTheHeadersSoTheAppCanReadThem() throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(corsController + "/v1/meetings"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"title\":\"x\"}"))
                .header("Origin", ALLOWED)
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", "cors-problem-1"));
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(ct -> assertThat(ct).contains("problem+json"));
        assertThat(r.headers().firstValue("Access-Control-Allow-Origin")).hasValue(ALLOWED);
        assertThat(String.join(",", r.headers().allValues("Access-Control-Expose-Headers"))).contains("Retry-After");
    }

    @Test
    void anOriginNotInTheListGetsNoCorsHeadersFromTheApi() throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(corsController + "/v1/meetings"))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .header("Origin", OTHER)
                .header("Access-Control-Request-Method", "POST")
                .header("Access-Control-Request-Headers", "authorization"));
        assertThat(r.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        // ... but may import the SDK's scripts (public code): the refusal comes at the first API call
        HttpResponse<String> sdk = send(HttpRequest.newBuilder(URI.create(corsController + "/sdk/events.js")).GET().header("Origin", OTHER));
        assertThat(sdk.statusCode()).isEqualTo(200);
        assertThat(sdk.headers().firstValue("Access-Control-Allow-Origin")).hasValue("*");
        HttpResponse<String> sdkAllowed = send(HttpRequest.newBuilder(URI.create(corsController + "/sdk/events.js")).GET().header("Origin", ALLOWED));
        assertThat(sdkAllowed.headers().allValues("Access-Control-Allow-Origin")).containsExactly(ALLOWED);
    }

    @Test
    void corsIsOffByDefault() throws Exception {
        String plain = h.base(0);
        HttpResponse<String> pre = send(HttpRequest.newBuilder(URI.create(plain + "/v1/meetings"))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .header("Origin", ALLOWED)
                .header("Access-Control-Request-Method", "POST")
                .header("Access-Control-Request-Headers", "authorization"));
        assertThat(pre.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        HttpResponse<String> sdk = send(HttpRequest.newBuilder(URI.create(plain + "/sdk/events.js")).GET().header("Origin", ALLOWED));
        assertThat(sdk.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
    }

    @Test
    void theExamplePageOnAnAllowedOriginJoinsAMeeting(Page page) throws Exception {
        List<String> console = watch(page);
        page.navigate(ALLOWED_SITE.url("/embed.html?auto=1&controller=" + corsController));
        page.waitForFunction("() => window.parleyExample.joined || window.parleyExample.error", null,
                new Page.WaitForFunctionOptions().setTimeout(45_000));
        assertThat(page.evaluate("() => window.parleyExample.error")).as("console: %s", console).isNull();
        String meetingId = (String) page.evaluate("() => window.parleyExample.meetingId");
        assertThat(meetingId).isNotBlank();
        // the typed events the page listens to, as they came: admitted over REST, then the socket's joined
        @SuppressWarnings("unchecked")
        List<String> types = (List<String>) page.evaluate("() => window.parleyExample.events.map((e) => e.type + ':' + (e.payload.state ?? ''))");
        assertThat(types).contains("admission:joining", "admission:admitted", "connection_state:connecting", "signaling:open");
        assertThat(console).noneMatch(m -> m.contains("CORS"));
        assertThat(h.count("SELECT count(*) FROM meeting_participants WHERE meeting_id::text = '" + meetingId + "'")).isEqualTo(1);
    }

    @Test
    void theSamePageOnAnotherOriginIsRefusedByCors(Page page) {
        List<String> console = watch(page);
        page.navigate(OTHER_SITE.url("/embed.html?auto=1&controller=" + corsController));
        page.waitForFunction("() => window.parleyExample.joined || window.parleyExample.error", null,
                new Page.WaitForFunctionOptions().setTimeout(45_000));
        assertThat(page.evaluate("() => window.parleyExample.joined")).isEqualTo(false);
        assertThat((String) page.evaluate("() => window.parleyExample.error.code")).isEqualTo("network");
        assertThat(console).anyMatch(m -> m.contains("has been blocked by CORS policy") && m.contains(OTHER));
    }

    private static List<String> watch(Page page) {
        List<String> console = new CopyOnWriteArrayList<>();
        page.onConsoleMessage(m -> console.add(m.type() + ": " + m.text()));
        return console;
    }

    private static HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
        return h.http.send(b.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
