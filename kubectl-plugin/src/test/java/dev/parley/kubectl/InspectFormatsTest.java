package dev.parley.kubectl;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.sun.net.httpserver.HttpServer;
import dev.parley.testsupport.etcd.EtcdExtension;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code inspect meeting} in every output format. The owner key is in a real etcd; the owner's internal API is a
 * small HTTP server that answers {@code GET /internal/v1/meetings/{id}/state} with a body shaped like the
 * controller's MeetingInspector output, and only with the right bearer secret.
 */
class InspectFormatsTest {
    @RegisterExtension
    static EtcdExtension etcd = new EtcdExtension();
    @TempDir
    static Path tmp;
    static HttpServer owner;
    static long epoch;
    static Path secretFile;

    static final String STATE = """
            {"meeting_id":"m-7","pod":"controller-3","owned_here":true,"owner_epoch":41,"controller_epoch":41,
             "status":"live","version":9,"active_participants":2,
             "participants":[
               {"participant_id":"p-host","role":"host","admission_state":"admitted","sfu":"eu2-sfu-aaaaa",
                "transport_generation":2,"participant_version":5,"publish":{"audio":true,"video":true,"screen":false}},
               {"participant_id":"p-guest","role":"guest","admission_state":"admitted","sfu":"eu2-sfu-bbbbb",
                "transport_generation":1,"participant_version":3,"publish":{"audio":false,"video":false,"screen":false}}],
             "sfus":["eu2-sfu-aaaaa","eu2-sfu-bbbbb"],
             "pending_enforcement":[{"command_id":"c-1","type":"mute","participant_id":"p-guest",
                "committed_at":"2026-01-01T00:00:00Z","tracked_here":true}]}
            """;

    @BeforeAll
    static void start() throws Exception {
        secretFile = tmp.resolve("secret");
        Files.writeString(secretFile, "s3cret\n");
        owner = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        owner.createContext("/internal/v1/meetings/m-7/state", x -> {
            boolean ok = "Bearer s3cret".equals(x.getRequestHeaders().getFirst("Authorization"));
            byte[] body = (ok ? STATE : "{\"title\":\"unauthorized\"}").getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(ok ? 200 : 401, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        owner.start();
        try (Client c = Client.builder().endpoints(etcd.endpoints().toArray(String[]::new)).build()) {
            epoch = c.getKVClient().put(key("m-7"), ByteSequence.from("{\"pod\":\"controller-3\",\"internal_url\":\"http://127.0.0.1:"
                    + owner.getAddress().getPort() + "/\"}", StandardCharsets.UTF_8)).get(20, TimeUnit.SECONDS).getHeader().getRevision();
            c.getKVClient().put(key("m-quiet"), ByteSequence.from("{\"pod\":\"controller-4\"}", StandardCharsets.UTF_8))
                    .get(20, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        owner.stop(0);
    }

    private static ByteSequence key(String meeting) {
        return ByteSequence.from("/parley/v1/meetings/" + meeting + "/owner", StandardCharsets.UTF_8);
    }

    private static MockCluster.Result inspect(String meeting, String... more) {
        String[] base = {"inspect", "meeting", meeting, "--etcd", etcd.endpointsCsv(), "--secret-file", secretFile.toString()};
        String[] all = new String[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return MockCluster.runRaw(all);
    }

    @Test
    void tableAndWide() {
        MockCluster.Result table = inspect("m-7");
        assertThat(table.code()).as(table.err()).isZero();
        assertThat(table.out()).contains("owner controller:  controller-3").contains("controller_epoch:  " + epoch)
                .contains("participants:      2")
                .containsPattern("PARTICIPANT\\s+STATE\\s+SFU\\s+GEN\\s+VERSION\\n")
                .containsPattern("p-host\\s+admitted\\s+eu2-sfu-aaaaa\\s+2\\s+5\\n")
                .contains("\"command_id\":\"c-1\"").doesNotContain("ROLE");
        MockCluster.Result wide = inspect("m-7", "-o", "wide");
        assertThat(wide.code()).as(wide.err()).isZero();
        assertThat(wide.out()).contains("status:            live (version 9, owned here true)")
                .containsPattern("p-host\\s+admitted\\s+eu2-sfu-aaaaa\\s+2\\s+5\\s+host\\s+audio,video\\n")
                .containsPattern("p-guest\\s+admitted\\s+eu2-sfu-bbbbb\\s+1\\s+3\\s+guest\\s+-\\n")
                .contains("pending enforcement: 1")
                .containsPattern("c-1\\s+mute\\s+p-guest\\s+2026-01-01T00:00:00Z\\s+true");
    }

    @Test
    void jsonAndYamlCarryOwnerAndTheOwnersState() throws Exception {
        MockCluster.Result json = inspect("m-7", "-o", "json");
        assertThat(json.code()).as(json.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(json.out());
        assertThat(j.path("apiVersion").asText()).isEqualTo("kubectl.parley.dev/v1");
        assertThat(j.path("kind").asText()).isEqualTo("MeetingInspection");
        assertThat(j.path("meeting").asText()).isEqualTo("m-7");
        assertThat(j.path("owner").path("controller").asText()).isEqualTo("controller-3");
        assertThat(j.path("owner").path("controllerEpoch").asLong()).isEqualTo(epoch);
        assertThat(j.path("owner").path("internalUrl").asText()).startsWith("http://127.0.0.1:");
        assertThat(j.path("state")).isEqualTo(new ObjectMapper().readTree(STATE));
        assertThat(j.path("stateError").isNull()).isTrue();
        MockCluster.Result yaml = inspect("m-7", "-o", "yaml");
        assertThat(yaml.code()).as(yaml.err()).isZero();
        assertThat(new ObjectMapper(new YAMLFactory()).readTree(yaml.out())).isEqualTo(j);
    }

    @Test
    void ownerWithoutInternalUrlHasNoState() throws Exception {
        MockCluster.Result r = inspect("m-quiet", "-o", "json");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertThat(j.path("owner").path("controller").asText()).isEqualTo("controller-4");
        assertThat(j.path("owner").path("internalUrl").isNull()).isTrue();
        assertThat(j.path("state").isNull()).isTrue();
    }

    @Test
    void noOwnerIsNotFoundOnStderr() {
        for (String format : new String[] {"json", "yaml", "wide"}) {
            MockCluster.Result r = inspect("m-none", "-o", format);
            assertThat(r.code()).isEqualTo(3);
            assertThat(r.out()).isEmpty();
            assertThat(r.err()).isEqualTo("error: meeting m-none: no owner in etcd (not live, or its owner's lease lapsed)\n");
        }
    }

    @Test
    void unreachableOwnerOrEtcdIsFour() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        MockCluster.Result r = inspect("m-7", "--controller-url", "http://127.0.0.1:" + closed, "-o", "json");
        assertThat(r.code()).isEqualTo(4);
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertThat(j.path("owner").path("controller").asText()).isEqualTo("controller-3");
        assertThat(j.path("state").isNull()).isTrue();
        assertThat(j.path("stateError").asText()).startsWith("owner's internal API not reachable");
        assertThat(r.err()).startsWith("error: owner's internal API not reachable");

        MockCluster.Result wrongSecret = MockCluster.runRaw("inspect", "meeting", "m-7", "--etcd", etcd.endpointsCsv());
        assertThat(wrongSecret.code()).isEqualTo(4);
        assertThat(wrongSecret.err()).contains("owner's meeting state: HTTP 401");

        MockCluster.Result noEtcd = MockCluster.runRaw("inspect", "meeting", "m-7", "--etcd", "http://127.0.0.1:" + closed);
        assertThat(noEtcd.code()).as(noEtcd.err()).isEqualTo(4);
        assertThat(noEtcd.out()).isEmpty();
        assertThat(noEtcd.err()).startsWith("error: ");
    }
}
