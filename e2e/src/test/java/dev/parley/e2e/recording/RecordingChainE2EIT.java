package dev.parley.e2e.recording;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.nimbusds.jose.jwk.ECKey;
import dev.parley.e2e.process.PodProcess;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.testsupport.etcd.EtcdCluster;
import dev.parley.testsupport.net.FreePorts;
import dev.parley.testsupport.postgres.PostgresExtension;
import dev.parley.testsupport.s3.S3Proxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The whole recording chain as separate processes, all on loopback: PostgreSQL, etcd, s3proxy, a controller pod,
 * an SFU pod and a recorder pod from their jars, and headless Chromium publishing its fake camera and microphone
 * through the real web app. The host starts the recording through the public API; the recorder (the pod the
 * operator would start for the job) subscribes through the controller's internal API as the hidden
 * subscribe-only participant and receives the browser's tracks from the SFU over DTLS-SRTP; the host stops it
 * through the API; the job becomes {@code ready}; the host's presigned link serves the composite, which ffprobe
 * reads as video + audio of the recorded length and whose sha256 is the manifest's; an attendee's GET is refused.
 */
class RecordingChainE2EIT {
    static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    static final Path CONTROLLER_JAR = jar("parley.e2e.controllerJar", "controller-pod/target/controller-pod.jar");
    static final Path SFU_JAR = jar("parley.e2e.sfuJar", "sfu-pod/target/sfu-pod.jar");
    static final Path RECORDER_JAR = jar("parley.e2e.recorderJar", "recorder-pod/target/recorder-pod.jar");
    static final Path CHROMIUM = Path.of(System.getProperty("parley.chromium", "/usr/bin/chromium"));
    static final int RECORD_SECONDS = 8;
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1).build();

    @TempDir
    Path tmp;
    private final List<AutoCloseable> closeLast = new ArrayList<>();

    static Path jar(String property, String relative) {
        return Path.of(System.getProperty(property, ROOT.resolve(relative).toString()));
    }

    @AfterEach
    void down() {
        for (int i = closeLast.size() - 1; i >= 0; i--) {
            try {
                closeLast.get(i).close();
            } catch (Exception e) {
                System.out.println("cleanup: " + e);
            }
        }
    }

    @Test
    void hostRecordsABrowserThroughControllerSfuAndRecorderAndDownloadsTheComposite() throws Exception {
        for (Path p : List.of(CONTROLLER_JAR, SFU_JAR, RECORDER_JAR)) {
            assumeTrue(Files.isRegularFile(p), p + " not built (package the pods first)");
        }
        assumeTrue(Files.isExecutable(CHROMIUM), "chromium not installed at " + CHROMIUM);
        Path logs = Path.of("target", "recording-e2e-logs");
        String secret = UUID.randomUUID().toString();

        EtcdCluster etcd = EtcdCluster.start(1);
        closeLast.add(etcd);
        S3Proxy s3 = S3Proxy.start("recordings");
        closeLast.add(s3);
        PostgresExtension.Database db = PostgresExtension.createDatabase("recording_e2e");
        ECKey ticketKey = TicketKeys.generate();

        int sfuInternal = FreePorts.tcp();
        Map<String, String> sfuEnv = new HashMap<>();
        sfuEnv.put("PARLEY_POD_NAME", "sfu-0");
        sfuEnv.put("PARLEY_REGION", "local");
        sfuEnv.put("PARLEY_BIND_ADDRESS", "127.0.0.1");
        sfuEnv.put("PARLEY_ANNOUNCED_ADDRESS", "127.0.0.1");
        sfuEnv.put("PARLEY_ETCD_ENDPOINTS", etcd.endpointsCsv());
        sfuEnv.put("PARLEY_INTERNAL_SECRET", secret);
        sfuEnv.put("PARLEY_LEASE_TTL_SECONDS", "3");
        // worker k binds base + k: reserve as many ports as the SFU's default worker count (one per core)
        int workers = Runtime.getRuntime().availableProcessors();
        sfuEnv.put("PARLEY_MEDIA_UDP_PORT", Integer.toString(FreePorts.tcpAndUdpRange(workers)));
        sfuEnv.put("PARLEY_MEDIA_TCP_PORT", Integer.toString(FreePorts.tcpAndUdpRange(workers)));
        sfuEnv.put("PARLEY_INTERNAL_PORT", Integer.toString(sfuInternal));
        sfuEnv.put("PARLEY_TICKET_PUBLIC_JWK", ticketKey.toPublicJWK().toJSONString());
        PodProcess sfu = PodProcess.start("sfu-0", SFU_JAR, sfuEnv, logs);
        closeLast.add(sfu);
        sfu.awaitReady("http://127.0.0.1:" + sfuInternal + "/readyz", Duration.ofSeconds(90));

        int http = FreePorts.tcp();
        String base = "http://localhost:" + http;
        Map<String, String> ctlEnv = new HashMap<>();
        ctlEnv.put("PARLEY_POD_NAME", "controller-0");
        ctlEnv.put("PARLEY_REGION", "local");
        ctlEnv.put("PARLEY_BIND_ADDRESS", "127.0.0.1");
        ctlEnv.put("PARLEY_HTTP_PORT", Integer.toString(http));
        ctlEnv.put("PARLEY_PUBLIC_URL", base);
        ctlEnv.put("PARLEY_DB_URL", db.jdbcUrl());
        ctlEnv.put("PARLEY_DB_USER", db.user());
        ctlEnv.put("PARLEY_DB_PASSWORD", db.password());
        ctlEnv.put("PARLEY_LOCAL_MODE", "true");
        ctlEnv.put("PARLEY_JWT_HMAC_SECRET", UUID.randomUUID() + UUID.randomUUID().toString());
        ctlEnv.put("PARLEY_TICKET_PRIVATE_JWK", ticketKey.toJSONString());
        ctlEnv.put("PARLEY_ETCD_ENDPOINTS", etcd.endpointsCsv());
        ctlEnv.put("PARLEY_INTERNAL_SECRET", secret);
        ctlEnv.put("PARLEY_LEASE_TTL_SECONDS", "5");
        // the recordings bucket: the same variables as the recorder's
        ctlEnv.putAll(s3Env(s3));
        ctlEnv.put("PARLEY_RECORDING_DOWNLOAD_TTL_SECONDS", "300");
        PodProcess controller = PodProcess.start("controller-0", CONTROLLER_JAR, ctlEnv, logs);
        closeLast.add(controller);
        controller.awaitReady("http://127.0.0.1:" + http + "/health/readiness", Duration.ofSeconds(120));

        // the host: Chromium with the real web app, publishing its fake camera and microphone
        Playwright pw = Playwright.create();
        closeLast.add(pw);
        Browser browser = pw.chromium().launch(new BrowserType.LaunchOptions().setExecutablePath(CHROMIUM).setHeadless(true)
                .setArgs(List.of("--no-sandbox", "--headless=new", "--use-fake-device-for-media-stream",
                        "--use-fake-ui-for-media-stream", "--allow-loopback-in-peer-connection",
                        "--autoplay-policy=no-user-gesture-required", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-gpu")));
        closeLast.add(browser);
        BrowserContext ctx = browser.newContext(new Browser.NewContextOptions().setPermissions(List.of("camera", "microphone")));
        Page page = ctx.newPage();
        page.onConsoleMessage(m -> System.out.println("[host " + m.type() + "] " + m.text()));
        page.navigate(base + "/");
        page.waitForSelector("[data-testid=signin-name]", new Page.WaitForSelectorOptions().setTimeout(30000));
        page.fill("[data-testid=signin-name]", "Hana Host");
        page.click("[data-testid=signin-submit]");
        page.fill("[data-testid=create-title]", "Recorded review");
        page.uncheck("[data-testid=create-waiting-room]");
        page.click("[data-testid=create-submit]");
        page.click("[data-testid=share-join]");
        page.click("[data-testid=prejoin-join]");
        page.waitForSelector("[data-testid=meeting]", new Page.WaitForSelectorOptions().setTimeout(30000));
        awaitTrue(() -> "connected".equals(page.evaluate("() => window.parleyApp?.client?.state.connection")),
                Duration.ofSeconds(60), "host connected");
        JsonNode session = JSON.readTree(String.valueOf(page.evaluate("() => sessionStorage.getItem('parley.session')")));
        String hostToken = session.path("token").asText();
        String tenant = session.path("tenantId").asText();
        String meetingId = String.valueOf(page.evaluate("() => window.parleyApp.client.meetingId"));

        // start_recording through the public API
        JsonNode started = call(base, "POST", "/v1/meetings/" + meetingId + "/commands", hostToken,
                "{\"type\":\"start_recording\"}", 201);
        String job = started.path("recording_job_id").asText();

        // the recorder pod for generation 1 of the job (the operator's part)
        int recorderPort = FreePorts.tcp();
        Map<String, String> recEnv = new HashMap<>(s3Env(s3));
        recEnv.put("PARLEY_RECORDING_JOB_ID", job);
        recEnv.put("PARLEY_RECORDING_GENERATION", "1");
        recEnv.put("PARLEY_POD_NAME", "recorder-" + job + "-g1");
        recEnv.put("PARLEY_ETCD_ENDPOINTS", etcd.endpointsCsv());
        recEnv.put("PARLEY_LEASE_TTL_SECONDS", "3");
        recEnv.put("PARLEY_RECORDER_SOURCE", "sfu");
        recEnv.put("PARLEY_CONTROLLER_INTERNAL_URL", "http://127.0.0.1:" + http);
        recEnv.put("PARLEY_INTERNAL_SECRET", secret);
        recEnv.put("PARLEY_BIND_ADDRESS", "127.0.0.1");
        recEnv.put("PARLEY_INTERNAL_PORT", Integer.toString(recorderPort));
        recEnv.put("PARLEY_RECORDER_SFU_SLOTS", "2");
        recEnv.put("PARLEY_RECORDER_SEGMENT_SECONDS", "2");
        recEnv.put("PARLEY_RECORDER_SPOOL_DIR", tmp.resolve("spool").toString());
        recEnv.put("PARLEY_RECORDER_TILE", "320x180");
        recEnv.put("PARLEY_RECORDER_UPLOAD_TIMEOUT_MS", "3000");
        recEnv.put("PARLEY_RECORDER_DRAIN_TIMEOUT_SECONDS", "60");
        PodProcess recorder = PodProcess.start("recorder-g1", RECORDER_JAR, recEnv, logs);
        closeLast.add(recorder);
        // ready = lease held and media arriving from the SFU
        recorder.awaitReady("http://127.0.0.1:" + recorderPort + "/readyz", Duration.ofSeconds(120));
        awaitTrue(() -> "recording".equals(call(base, "GET", "/v1/recordings/" + job, hostToken, null, 200)
                .path("state").asText()), Duration.ofSeconds(30), "job recording");
        Thread.sleep(RECORD_SECONDS * 1000L); // the meeting goes on for a while

        call(base, "POST", "/v1/meetings/" + meetingId + "/commands", hostToken, "{\"type\":\"stop_recording\"}", 201);
        // the stop reaches the recorder in the answer to its next state report; it finalizes and exits 0
        int exit = recorder.waitFor(240);
        assertThat(exit).as(recorder.tail()).isZero();

        JsonNode rec = call(base, "GET", "/v1/recordings/" + job, hostToken, null, 200);
        assertThat(rec.path("state").asText()).as(rec.toString()).isEqualTo("ready");
        assertThat(rec.path("missing_ranges")).isEmpty();
        String url = rec.path("download_url").asText();
        assertThat(url).startsWith(s3.endpoint()).contains("X-Amz-Signature=");

        // the link alone serves the composite
        HttpResponse<byte[]> download = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .GET().build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(download.statusCode()).isEqualTo(200);
        Path composite = tmp.resolve("composite.mp4");
        Files.write(composite, download.body());

        JsonNode manifest = currentManifest(s3, job);
        assertThat(manifest.path("state").asText()).isEqualTo("ready");
        List<String> kinds = new ArrayList<>();
        manifest.path("tracks").forEach(t -> kinds.add(t.path("kind").asText()));
        assertThat(kinds).as("tracks recorded from the browser").containsExactlyInAnyOrder("video", "audio");
        assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(download.body())))
                .isEqualTo(manifest.path("result").path("composite_sha256").asText());
        long first = Long.MAX_VALUE;
        long last = 0;
        for (JsonNode s : manifest.path("segments")) {
            first = Math.min(first, s.path("start_ms").asLong());
            last = Math.max(last, s.path("end_ms").asLong());
        }
        double span = (last - first) / 1000.0;
        JsonNode probe = ffprobe(composite);
        List<String> streams = new ArrayList<>();
        probe.path("streams").forEach(s -> streams.add(s.path("codec_type").asText()));
        assertThat(streams).contains("video", "audio");
        double duration = probe.path("format").path("duration").asDouble();
        System.out.println("recording e2e: composite " + duration + " s, media span " + span + " s, "
                + download.body().length + " bytes");
        assertThat(duration).isCloseTo(span, within(1.0));
        assertThat(duration).isGreaterThan(RECORD_SECONDS - 1);

        // an attendee of the same tenant: no link
        String attendee = call(base, "POST", "/v1/dev/tokens", null, "{\"tenant\":\"" + tenant + "\",\"principal\":\""
                + UUID.randomUUID() + "\",\"name\":\"Ari\"}", 200).path("token").asText();
        call(base, "GET", "/v1/recordings/" + job, attendee, null, 403);
    }

    static Map<String, String> s3Env(S3Proxy s3) {
        return Map.of("PARLEY_S3_ENDPOINT", s3.endpoint(), "PARLEY_S3_BUCKET", s3.bucket(),
                "PARLEY_S3_REGION", s3.region(), "PARLEY_S3_ACCESS_KEY", s3.accessKey(),
                "PARLEY_S3_SECRET_KEY", s3.secretKey());
    }

    static JsonNode call(String base, String method, String path, String token, String body, int expected) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20))
                    .header("Content-Type", "application/json").header("Idempotency-Key", UUID.randomUUID().toString());
            if (token != null) {
                b.header("Authorization", "Bearer " + token);
            }
            b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
            HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isEqualTo(expected);
            return r.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(r.body());
        } catch (Exception e) {
            throw new IllegalStateException(method + " " + path, e);
        }
    }

    /** The highest generation's manifest ({@code {job}/manifest/{g:020d}.json}, docs/recording.md). */
    static JsonNode currentManifest(S3Proxy s3, String job) throws Exception {
        try (S3Client client = S3Client.builder().endpointOverride(s3.endpointUri()).region(Region.of(s3.region()))
                .httpClient(UrlConnectionHttpClient.create())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(),
                        s3.secretKey())))
                .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).build()) {
            String key = client.listObjectsV2(l -> l.bucket(s3.bucket()).prefix(job + "/manifest/")).contents().stream()
                    .map(o -> o.key()).sorted().reduce((a, b) -> b).orElseThrow();
            return JSON.readTree(client.getObjectAsBytes(g -> g.bucket(s3.bucket()).key(key)).asByteArray());
        }
    }

    static JsonNode ffprobe(Path file) throws Exception {
        Process p = new ProcessBuilder("ffprobe", "-v", "error", "-show_entries", "format=duration:stream=codec_type",
                "-of", "json", file.toString()).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(new String(out, java.nio.charset.StandardCharsets.UTF_8)).isZero();
        return JSON.readTree(out);
    }

    static void awaitTrue(java.util.function.BooleanSupplier condition, Duration timeout, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(250);
        }
    }
}
