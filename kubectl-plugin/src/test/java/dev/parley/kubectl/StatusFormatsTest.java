package dev.parley.kubectl;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code status} in every output format, each parsed and checked against the objects in the mock API server. */
class StatusFormatsTest {
    static MockCluster k8s;
    @TempDir
    static Path tmp;

    @BeforeAll
    static void start() throws Exception {
        k8s = new MockCluster(tmp, Eu2Fixture.NS);
        Eu2Fixture.create(k8s.client);
    }

    @AfterAll
    static void stop() {
        k8s.close();
    }

    @Test
    void jsonIsTheWholeDocumentWithApiVersionAndKind() throws Exception {
        MockCluster.Result r = k8s.run("status", "-o", "json");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode doc = new ObjectMapper().readTree(r.out());
        checkDocument(doc);
    }

    @Test
    void yamlHasTheSameDocumentAsJson() throws Exception {
        MockCluster.Result r = k8s.run("status", "--output=yaml");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode yaml = new ObjectMapper(new YAMLFactory()).readTree(r.out());
        checkDocument(yaml);
        assertThat(yaml).isEqualTo(new ObjectMapper().readTree(k8s.run("status", "-o", "json").out()));
    }

    private static void checkDocument(JsonNode doc) {
        assertThat(doc.path("apiVersion").asText()).isEqualTo("kubectl.parley.dev/v1");
        assertThat(doc.path("kind").asText()).isEqualTo("Status");
        JsonNode region = doc.path("regions").get(0);
        assertThat(region.path("name").asText()).isEqualTo("eu2");
        assertThat(region.path("ready").asText()).isEqualTo("False");
        assertThat(region.path("signalingHost").asText()).isEqualTo("meet.eu2.example.test");
        assertThat(region.path("conditions").get(0).path("reason").asText()).isEqualTo("TurnDegraded");
        assertThat(doc.path("pools")).hasSize(2);
        JsonNode sfu = pool(doc, "eu2-sfu");
        assertThat(sfu.path("kind").asText()).isEqualTo("SFU");
        assertThat(sfu.path("replicas").asInt()).isEqualTo(3);
        assertThat(sfu.path("ready").asInt()).isEqualTo(2);
        assertThat(sfu.path("draining").asInt()).isEqualTo(1);
        assertThat(sfu.path("desired").asInt()).isEqualTo(2);
        assertThat(sfu.path("averageLoad").asDouble()).isEqualTo(0.37);
        assertThat(sfu.path("readyCondition").asText()).isEqualTo("True");
        assertThat(sfu.path("lastDecision").asText()).isEqualTo("UP 2->3");
        assertThat(pool(doc, "eu2-turn").path("kind").asText()).isEqualTo("TURN");
        JsonNode a = pod(doc, "eu2-sfu-aaaaa");
        assertThat(a.path("connections").asLong()).isEqualTo(31);
        assertThat(a.path("subscriptions").asLong()).isEqualTo(93);
        assertThat(a.path("egressBps").asLong()).isEqualTo(31_000);
        assertThat(a.path("pps").asLong()).isEqualTo(310);
        // absent values are explicit nulls: every documented key is always there
        assertThat(a.has("drainPhase")).isTrue();
        assertThat(a.path("drainPhase").isNull()).isTrue();
        assertThat(pod(doc, "eu2-sfu-ccccc").path("drainPhase").asText()).isEqualTo("3-migrating");
        JsonNode t = pod(doc, "eu2-turn-ttttt");
        assertThat(t.path("connections").asLong()).isEqualTo(44);
        assertThat(t.path("relayedBps").asLong()).isEqualTo(7_000_000);
        assertThat(t.path("pool").asText()).isEqualTo("eu2-turn");
    }

    @Test
    void tableAndWideShowTheSameValues() {
        MockCluster.Result table = k8s.run("status");
        assertThat(table.code()).as(table.err()).isZero();
        assertThat(table.out())
                .containsPattern("eu2\\s+eu2\\s+False\\s+meet.eu2.example.test\\s+turn.eu2.example.test")
                .containsPattern("eu2\\s+eu2-sfu\\s+SFU\\s+3\\s+2\\s+1\\s+2\\s+0.37\\n")
                .containsPattern("eu2-sfu\\s+eu2-sfu-aaaaa\\s+ACTIVE\\s+-\\s+0.61\\s+31\\n")
                .containsPattern("eu2-turn\\s+eu2-turn-ttttt\\s+ACTIVE\\s+-\\s+0.45\\s+44\\n")
                .doesNotContain("EGRESS_BPS").doesNotContain("UP 2->3");
        MockCluster.Result wide = k8s.run("status", "-o", "wide");
        assertThat(wide.code()).as(wide.err()).isZero();
        assertThat(wide.out()).contains("LAST DECISION").contains("EGRESS_BPS")
                .containsPattern("eu2\\s+eu2-sfu\\s+SFU\\s+3\\s+2\\s+1\\s+2\\s+0.37\\s+UP 2->3\\s+average load 0.81")
                .containsPattern("eu2-sfu\\s+eu2-sfu-aaaaa\\s+ACTIVE\\s+-\\s+0.61\\s+31\\s+31000\\s+310\\s+93\\s+-")
                .containsPattern("eu2-turn-ttttt\\s+ACTIVE\\s+-\\s+0.45\\s+44\\s+-\\s+-\\s+-\\s+7000000");
        MockCluster.Result all = k8s.run("status", "-A", "-o", "wide");
        assertThat(all.out()).containsPattern("ops\\s+eu2\\s+eu2-sfu\\s+SFU").containsPattern("ops\\s+eu2-sfu\\s+eu2-sfu-bbbbb");
    }

    private static JsonNode pool(JsonNode doc, String name) {
        for (JsonNode p : doc.path("pools")) {
            if (p.path("pool").asText().equals(name)) {
                return p;
            }
        }
        throw new AssertionError("no pool " + name + " in " + doc);
    }

    private static JsonNode pod(JsonNode doc, String name) {
        for (JsonNode p : doc.path("pods")) {
            if (p.path("pod").asText().equals(name)) {
                return p;
            }
        }
        throw new AssertionError("no pod " + name + " in " + doc);
    }
}
