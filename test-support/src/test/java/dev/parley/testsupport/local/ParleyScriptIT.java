package dev.parley.testsupport.local;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.parley.testsupport.fs.Directories;
import dev.parley.testsupport.net.FreePorts;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Runs the real {@code ./parley} script (up -d, status --json, down, up again) in a temporary state
 * directory on free ports, and checks PostgreSQL and etcd are really reachable, keep data across a
 * restart, and are gone after {@code down}. Pod jars are not needed: missing ones must say "not built yet".
 */
class ParleyScriptIT {

    private static final Path REPO = Path.of(System.getProperty("user.dir")).getParent();
    private static final List<String> PODS = List.of("controller", "sfu-0", "sfu-1", "turn-0", "recorder-0");
    private static final Map<String, String> MODULE_OF = Map.of("controller", "controller-pod", "sfu-0", "sfu-pod",
            "sfu-1", "sfu-pod", "turn-0", "turn-pod", "recorder-0", "recorder-pod");

    private Path home;
    private final Map<String, String> env = new HashMap<>();

    @BeforeEach
    void setUp() throws IOException {
        home = Files.createTempDirectory("parley-home-");
        env.put("PARLEY_HOME", home.toString());
        env.put("PARLEY_SKIP_BUILD", "1");
        env.put("PARLEY_UP_WAIT", "30"); // if stale pod jars exist in this worktree they start too; do not wait long
        env.put("PARLEY_PG_PORT", String.valueOf(FreePorts.tcp()));
        env.put("PARLEY_ETCD_PORT", String.valueOf(FreePorts.tcp()));
        env.put("PARLEY_ETCD_PEER_PORT", String.valueOf(FreePorts.tcp()));
        env.put("PARLEY_S3_PORT", String.valueOf(FreePorts.tcp()));
        // moves every other default port (pods) away from a developer's running ./parley
        env.put("PARLEY_PORT_OFFSET", String.valueOf(10_000 + (int) (ProcessHandle.current().pid() % 5_000)));
    }

    @AfterEach
    void tearDown() throws Exception {
        run("down"); // idempotent; makes sure nothing outlives a failed assertion
        Directories.deleteTree(home);
    }

    @Test
    void upStatusDownKeepsDataAcrossRestart() throws Exception {
        int pgPort = Integer.parseInt(env.get("PARLEY_PG_PORT"));
        int etcdPort = Integer.parseInt(env.get("PARLEY_ETCD_PORT"));

        Result up = run("up", "-d");
        assertThat(up.exitCode).as(up.output).isZero();
        assertThat(up.output).contains("postgres   started").contains("etcd       started");
        assertNoSecretIn(up.output);

        JsonObject status = JsonParser.parseString(run("status", "--json").output).getAsJsonObject();
        Map<String, JsonObject> services = new HashMap<>();
        status.getAsJsonArray("services").forEach(e -> services.put(e.getAsJsonObject().get("name").getAsString(), e.getAsJsonObject()));
        assertThat(services).containsKeys("postgres", "etcd", "s3", "controller", "sfu-0", "sfu-1", "turn-0", "recorder-0");
        for (String infra : List.of("postgres", "etcd", "s3")) {
            assertThat(services.get(infra).get("health").getAsString()).as(infra).isEqualTo("healthy");
            assertThat(services.get(infra).get("pid").getAsLong()).as(infra).isPositive();
        }
        assertThat(services.get("etcd").getAsJsonArray("urls").get(0).getAsString()).isEqualTo("http://127.0.0.1:" + etcdPort);
        for (String pod : PODS) {
            Path jar = REPO.resolve(MODULE_OF.get(pod)).resolve("target").resolve(MODULE_OF.get(pod) + ".jar");
            if (!Files.exists(jar)) {
                assertThat(services.get(pod).get("health").getAsString()).as(pod).isEqualTo("not built yet");
                assertThat(services.get(pod).get("pid").isJsonNull()).as(pod).isTrue();
            }
        }
        assertThat(status.getAsJsonObject("secrets").get("dir").getAsString()).isEqualTo(home.resolve("secrets").toString());
        assertThat(status.getAsJsonObject("devTokens").get("switch").getAsString()).contains("PARLEY_LOCAL_MODE=true");
        for (String f : LocalSecrets.FILES) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(home.resolve("secrets").resolve(f))))
                    .as(f).isEqualTo("rw-------");
        }

        long pgPid = services.get("postgres").get("pid").getAsLong();
        long etcdPid = services.get("etcd").get("pid").getAsLong();

        // PostgreSQL: a real server with a "parley" database we can write to
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + pgPort + "/parley", "postgres", "x");
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE meeting(id text primary key)");
            s.execute("INSERT INTO meeting VALUES ('m-1')");
        }
        // etcd: a real member
        try (Client etcd = Client.builder().endpoints("http://127.0.0.1:" + etcdPort).build()) {
            etcd.getKVClient().put(bytes("/parley/it"), bytes("up")).get(10, TimeUnit.SECONDS);
            assertThat(etcd.getKVClient().get(bytes("/parley/it")).get(10, TimeUnit.SECONDS).getKvs()).hasSize(1);
        }

        // s3 (recordings): the bucket exists and takes objects with the generated credentials
        try (S3Client s3 = S3Client.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + env.get("PARLEY_S3_PORT")))
                .forcePathStyle(true).region(Region.US_EAST_1)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                        secret("s3-access-key"), secret("s3-secret-key"))))
                .build()) {
            s3.putObject(b -> b.bucket("parley-recordings").key("it/probe.txt"), RequestBody.fromString("probe"));
            assertThat(s3.listObjectsV2(b -> b.bucket("parley-recordings")).contents())
                    .extracting(o -> o.key()).containsExactly("it/probe.txt");
        }

        Result down = run("down");
        assertThat(down.exitCode).as(down.output).isZero();
        assertThat(down.output).contains("postgres   stopped").contains("etcd       stopped");
        assertThat(ProcessHandle.of(pgPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(ProcessHandle.of(etcdPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(FreePorts.isListening(pgPort)).isFalse();
        assertThat(FreePorts.isListening(etcdPort)).isFalse();
        assertThat(run("down").output).contains("nothing was running");

        // restart: the meeting row and the etcd key are still there (data lives under PARLEY_HOME)
        Result again = run("up", "-d");
        assertThat(again.exitCode).as(again.output).isZero();
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + pgPort + "/parley", "postgres", "x");
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM meeting")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("m-1");
        }
        try (Client etcd = Client.builder().endpoints("http://127.0.0.1:" + etcdPort).build()) {
            assertThat(etcd.getKVClient().get(bytes("/parley/it")).get(10, TimeUnit.SECONDS).getKvs()).hasSize(1);
        }
        assertThat(run("down").exitCode).isZero();
        assertThat(FreePorts.isListening(pgPort)).isFalse();
    }

    private void assertNoSecretIn(String output) throws IOException {
        for (String f : LocalSecrets.FILES) {
            String value = Files.readString(home.resolve("secrets").resolve(f)).trim();
            if (value.length() > 8 && !value.startsWith("{")) {
                assertThat(output).as("output must not contain " + f).doesNotContain(value);
            }
        }
    }

    private String secret(String name) throws IOException {
        return Files.readString(home.resolve("secrets").resolve(name)).trim();
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, UTF_8);
    }

    private Result run(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(REPO.resolve("parley").toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(REPO.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        pb.environment().remove("PARLEY_DB_URL");
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("./parley " + String.join(" ", args) + " timed out");
        }
        return new Result(p.exitValue(), new String(out, UTF_8));
    }

    private record Result(int exitCode, String output) {
    }
}
