package dev.parley.e2e.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The web app against a real controller pod (with real PostgreSQL and etcd, no SFU): sign-in with a dev
 * token, create a meeting, the waiting room, and a clear message for every refusal the controller
 * sends (denied, locked, removed and banned, meeting ended, no media server). The other side of each
 * scenario (the host) uses the public REST API directly. Skips with the reason when the controller jar
 * is not built.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ControllerWebIT {
    @RegisterExtension
    static final BrowserPlatform<LocalPlatform> env = BrowserPlatform.of(() -> LocalPlatform.missing(0),
            () -> LocalPlatform.start(0));
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    static final Path SHOTS = Paths.get("target", "screenshots");

    @BeforeAll
    void screenshots() throws Exception {
        Files.createDirectories(SHOTS);
    }

    @Test
    void signInCreateMeetingShareLinkAndDevicePreview() {
        try (BrowserContext ctx = context()) {
            Page page = ctx.newPage();
            page.navigate(env.platform().baseUrl() + "/");
            signIn(page, "Hana Host");
            page.fill("[data-testid=create-title]", "Design review");
            page.click("[data-testid=create-submit]");
            String link = page.inputValue("[data-testid=share-link]");
            assertThat(link).matches("http://localhost:\\d+/#/m/[0-9a-f-]{36}");
            page.click("[data-testid=share-join]");
            page.waitForSelector("[data-testid=prejoin-join]");
            assertThat(page.textContent("h1")).isEqualTo("Design review");
            page.waitForFunction("() => document.querySelector('.preview video').readyState >= 2");
            page.screenshot(new Page.ScreenshotOptions().setPath(SHOTS.resolve("controller-prejoin.png")));
        }
    }

    @Test
    void waitingGuestIsDeniedAndToldSo() throws Exception {
        Host host = hostMeeting(true);
        try (BrowserContext ctx = context()) {
            Page guest = joinAsGuest(ctx, host, "Dee Denied");
            guest.waitForSelector("[data-testid=waiting-room]");
            guest.screenshot(new Page.ScreenshotOptions().setPath(SHOTS.resolve("controller-waiting-room.png")));
            String pid = waitingPid(host, "Dee Denied");
            host.command(Map.of("type", "deny", "participant_id", pid));
            guest.waitForSelector("[data-testid=end-screen][data-kind=denied]", new Page.WaitForSelectorOptions().setTimeout(10000));
            assertThat(guest.textContent("[data-testid=end-reason]")).contains("did not let you in");
        }
    }

    @Test
    void admittedGuestWithoutAMediaServerIsToldWhy() throws Exception {
        Host host = hostMeeting(true);
        try (BrowserContext ctx = context()) {
            Page guest = joinAsGuest(ctx, host, "Ada Admitted");
            guest.waitForSelector("[data-testid=waiting-room]");
            host.command(Map.of("type", "admit", "participant_id", waitingPid(host, "Ada Admitted")));
            // Admitted: the client asks for a transport; with no SFU registered the controller says so.
            guest.waitForSelector("[data-testid=end-screen][data-kind=failed]", new Page.WaitForSelectorOptions().setTimeout(20000));
            assertThat(guest.textContent("[data-testid=end-reason]")).contains("No media server");
        }
    }

    @Test
    void lockedMeetingRefusesNewGuestsWithAMessage() throws Exception {
        Host host = hostMeeting(false);
        host.command(Map.of("type", "lock_meeting", "locked", true));
        try (BrowserContext ctx = context()) {
            Page guest = joinAsGuest(ctx, host, "Lou Late");
            guest.waitForSelector("[data-testid=end-screen][data-kind=locked]", new Page.WaitForSelectorOptions().setTimeout(10000));
            assertThat(guest.textContent("[data-testid=end-reason]")).contains("locked");
            guest.screenshot(new Page.ScreenshotOptions().setPath(SHOTS.resolve("controller-locked.png")));
        }
    }

    @Test
    void removedGuestCannotRejoinAndIsToldWhy() throws Exception {
        Host host = hostMeeting(true);
        try (BrowserContext ctx = context()) {
            Page guest = joinAsGuest(ctx, host, "Rex Removed");
            guest.waitForSelector("[data-testid=waiting-room]");
            String pid = waitingPid(host, "Rex Removed");
            host.command(Map.of("type", "admit", "participant_id", pid));
            host.command(Map.of("type", "remove_participant", "participant_id", pid));
            guest.waitForSelector("[data-testid=end-screen]", new Page.WaitForSelectorOptions().setTimeout(20000));
            guest.navigate(host.link());
            guest.reload();
            guest.click("[data-testid=prejoin-join]", new Page.ClickOptions().setTimeout(10000));
            guest.waitForSelector("[data-testid=end-screen][data-kind=removed]", new Page.WaitForSelectorOptions().setTimeout(10000));
            assertThat(guest.textContent("[data-testid=end-reason]")).contains("cannot rejoin");
        }
    }

    @Test
    void endedMeetingSaysSo() throws Exception {
        Host host = hostMeeting(false);
        host.command(Map.of("type", "end_meeting"));
        try (BrowserContext ctx = context()) {
            Page guest = ctx.newPage();
            guest.navigate(host.link());
            signIn(guest, "Eve Ended");
            guest.waitForSelector("[data-testid=end-screen][data-kind=ended]", new Page.WaitForSelectorOptions().setTimeout(15000));
            assertThat(guest.textContent("[data-testid=end-reason]")).contains("ended");
        }
    }

    // ------------------------------------------------------------------ helpers

    /** The host side of a scenario, through the public REST API. */
    record Host(String base, String token, String meetingId, String participantId) {
        String link() {
            return base + "/#/m/" + meetingId;
        }

        JsonNode command(Map<String, Object> body) throws Exception {
            return post(base, "/v1/meetings/" + meetingId + "/commands", token, body);
        }
    }

    private Host hostMeeting(boolean waitingRoom) throws Exception {
        String base = env.platform().baseUrl();
        String principal = UUID.randomUUID().toString();
        String token = post(base, "/v1/dev/tokens", null, Map.of("tenant", nameUuid("tenant", "local"), "principal", principal, "name", "Host")).get("token").asText();
        String id = post(base, "/v1/meetings", token, Map.of("title", "Refusals", "waiting_room_enabled", waitingRoom, "encryption_mode", "transport"))
            .get("meeting_id").asText();
        JsonNode me = post(base, "/v1/meetings/" + id + "/participants", token, Map.of("client_instance_id", UUID.randomUUID().toString(),
            "display_name", "Host", "capabilities", Map.of()));
        assertThat(me.get("admission_state").asText()).isEqualTo("admitted");
        return new Host(base, token, id, me.get("participant_id").asText());
    }

    private String waitingPid(Host host, String name) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(host.base() + "/v1/meetings/" + host.meetingId() + "/participants"))
                .header("Authorization", "Bearer " + host.token()).GET().build(), HttpResponse.BodyHandlers.ofString());
            for (JsonNode p : JSON.readTree(r.body()).path("participants")) {
                if (name.equals(p.path("display_name").asText())) return p.get("participant_id").asText();
            }
            Thread.sleep(200);
        }
        throw new AssertionError(name + " never appeared in the roster");
    }

    private static JsonNode post(String base, String path, String token, Map<String, Object> body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", "e2e-" + UUID.randomUUID())
            .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
        if (token != null) b.header("Authorization", "Bearer " + token);
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path + " -> " + r.body()).isBetween(200, 299);
        return JSON.readTree(r.body());
    }

    private BrowserContext context() {
        BrowserContext ctx = env.browser().newContext(new Browser.NewContextOptions().setViewportSize(1366, 800)
            .setPermissions(List.of("camera", "microphone")));
        ctx.onPage(p -> {
            p.onDialog(d -> d.accept());
            p.onConsoleMessage(m -> System.out.println("[browser " + m.type() + "] " + m.text()));
            p.onPageError(e -> System.out.println("[browser pageerror] " + e));
        });
        return ctx;
    }

    private Page joinAsGuest(BrowserContext ctx, Host host, String name) {
        Page guest = ctx.newPage();
        guest.navigate(host.link());
        signIn(guest, name);
        guest.click("[data-testid=prejoin-join]", new Page.ClickOptions().setTimeout(10000));
        return guest;
    }

    /** The app's mapping of a typed name to a UUID (app/session.js nameUuid): SHA-256, version 5 layout. */
    static String nameUuid(String kind, String text) throws Exception {
        byte[] d = java.security.MessageDigest.getInstance("SHA-256").digest((kind + ":" + text).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        d[6] = (byte) ((d[6] & 0x0f) | 0x50);
        d[8] = (byte) ((d[8] & 0x3f) | 0x80);
        java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(d, 0, 16);
        return new UUID(bb.getLong(), bb.getLong()).toString();
    }

    private static void signIn(Page page, String name) {
        page.waitForSelector("[data-testid=signin-name]");
        page.fill("[data-testid=signin-name]", name);
        page.fill("[data-testid=signin-principal]", name.toLowerCase().replace(' ', '-') + "-" + UUID.randomUUID().toString().substring(0, 8));
        page.click("[data-testid=signin-submit]");
    }
}
