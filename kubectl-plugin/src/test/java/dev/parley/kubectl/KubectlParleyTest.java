package dev.parley.kubectl;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.operator.crd.MediaRegion;
import dev.parley.operator.crd.MediaRegionSpec;
import dev.parley.operator.crd.MediaRegionStatus;
import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.PodLoadSummary;
import dev.parley.operator.crd.SfuPool;
import dev.parley.operator.crd.SfuPoolSpec;
import dev.parley.operator.crd.SfuPoolStatus;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The plugin against the mock API server, reached through a real kubeconfig file (--kubeconfig). */
class KubectlParleyTest {
    static KubernetesMockServer server;
    static KubernetesClient client;
    @TempDir
    static Path tmp;
    static Path kubeconfig;

    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        String[] all = Stream.concat(Stream.of(args), Stream.of("--kubeconfig", kubeconfig.toString())).toArray(String[]::new);
        if (args.length > 0 && args[0].equals("inspect")) {
            all = args;
        }
        int code = KubectlParley.run(new PrintWriter(out), new PrintWriter(err), all);
        return new Result(code, out.toString(), err.toString());
    }

    @BeforeAll
    static void start() throws Exception {
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(List.of()), false);
        server.init(InetAddress.getByName("127.0.0.1"), 0);
        client = server.createClient();
        try (Stream<Path> s = Files.list(Path.of("..", "crds"))) {
            for (Path p : s.filter(x -> x.toString().endsWith(".yml")).toList()) {
                try (InputStream in = Files.newInputStream(p)) {
                    client.apiextensions().v1().customResourceDefinitions()
                            .resource(client.getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class)).create();
                }
            }
        }
        kubeconfig = tmp.resolve("kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: mock
                  cluster: {server: "%s"}
                users:
                - name: tester
                  user: {token: test-token}
                contexts:
                - name: mock
                  context: {cluster: mock, user: tester, namespace: media}
                current-context: mock
                """.formatted(client.getConfiguration().getMasterUrl().replace("localhost", "127.0.0.1")));

        SfuPool pool = new SfuPool();
        pool.setMetadata(new ObjectMetaBuilder().withName("eu1-sfu").withNamespace("media").build());
        pool.setSpec(new SfuPoolSpec());
        pool.getSpec().region = "eu1";
        client.resources(SfuPool.class).inNamespace("media").resource(pool).create();
        SfuPoolStatus st = new SfuPoolStatus();
        st.replicas = 2;
        st.readyReplicas = 2;
        st.drainingReplicas = 1;
        st.desiredReplicas = 2;
        st.averageLoad = 0.42;
        st.autoscaler.lastDecision = "DOWN 3->2";
        st.autoscaler.lastDecisionReason = "average load 0.12 < scale-down threshold 0.30 for 600s";
        st.conditions.add(new ConditionBuilder().withType("Ready").withStatus("True").withReason("MinimumAvailable").build());
        st.pods.add(summary("eu1-sfu-aaaaa", "ACTIVE", null, 0.51, 40));
        st.pods.add(summary("eu1-sfu-bbbbb", "ACTIVE", null, 0.33, 22));
        st.pods.add(summary("eu1-sfu-ccccc", "DRAINING", "3-migrating", 0.02, 3));
        pool.setStatus(st);
        client.resources(SfuPool.class).inNamespace("media").resource(pool).updateStatus();

        MediaRegion mr = new MediaRegion();
        mr.setMetadata(new ObjectMetaBuilder().withName("eu1").withNamespace("media").build());
        mr.setSpec(new MediaRegionSpec());
        mr.getSpec().region = "eu1";
        mr.getSpec().signalingHost = "meet.eu1.example.com";
        mr.getSpec().turnHost = "turn.eu1.example.com";
        client.resources(MediaRegion.class).inNamespace("media").resource(mr).create();
        MediaRegionStatus ms = new MediaRegionStatus();
        ms.conditions.add(new ConditionBuilder().withType("Ready").withStatus("True").build());
        ms.turn.replicas = 1;
        ms.turn.readyReplicas = 1;
        PodLoadSummary t = new PodLoadSummary();
        t.name = "eu1-turn-zzzzz";
        t.state = "ACTIVE";
        t.load = 0.3;
        t.allocations = 300L;
        t.relayedBps = 12_000_000L;
        ms.turn.pods.add(t);
        mr.setStatus(ms);
        client.resources(MediaRegion.class).inNamespace("media").resource(mr).updateStatus();

        client.pods().inNamespace("media").resource(new PodBuilder().withNewMetadata().withName("eu1-sfu-aaaaa")
                .addToLabels(ParleyApi.LABEL_COMPONENT, "sfu").endMetadata().withNewSpec().addNewContainer().withName("sfu")
                .withImage("x").endContainer().endSpec().build()).create();
        client.pods().inNamespace("media").resource(new PodBuilder().withNewMetadata().withName("web")
                .endMetadata().withNewSpec().addNewContainer().withName("web").withImage("x").endContainer().endSpec().build()).create();
    }

    static PodLoadSummary summary(String name, String state, String phase, double load, long transports) {
        PodLoadSummary s = new PodLoadSummary();
        s.name = name;
        s.state = state;
        s.drainPhase = phase;
        s.load = load;
        s.transports = transports;
        s.egressBps = 1000L * transports;
        return s;
    }

    @AfterAll
    static void stop() {
        client.close();
        server.destroy();
    }

    @Test
    void statusShowsRegionsPoolsAndPodsInTheContextNamespace() {
        Result r = run("status");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("REGIONS").contains("meet.eu1.example.com")
                .containsPattern("eu1\\s+eu1-sfu\\s+SFU\\s+2\\s+2\\s+1\\s+2\\s+0.42")
                .containsPattern("eu1-sfu\\s+eu1-sfu-ccccc\\s+DRAINING\\s+3-migrating\\s+0.02\\s+3")
                .containsPattern("eu1-turn\\s+eu1-turn-zzzzz\\s+ACTIVE\\s+-\\s+0.3\\s+300")
                .doesNotContain("EGRESS_BPS");
        Result wide = run("status", "-o", "wide");
        assertThat(wide.out()).contains("EGRESS_BPS").contains("DOWN 3->2").contains("scale-down threshold 0.30");
        Result other = run("status", "-n", "elsewhere");
        assertThat(other.out()).contains("No resources found.").doesNotContain("eu1-sfu-aaaaa");
        assertThat(run("status", "-A").out()).contains("NAMESPACE").contains("media");
        assertThat(run("status", "-o", "xml").code()).isEqualTo(2);
    }

    @Test
    void statusAsJsonAndYaml() throws Exception {
        JsonNode json = new ObjectMapper().readTree(run("status", "-o", "json").out());
        assertThat(json.path("pools")).hasSize(2);
        assertThat(json.path("pods").findValuesAsText("pod")).contains("eu1-sfu-ccccc", "eu1-turn-zzzzz");
        assertThat(json.path("regions").get(0).path("turnHost").asText()).isEqualTo("turn.eu1.example.com");
        String yaml = run("status", "-o", "yaml").out();
        assertThat(yaml).contains("regions:").contains("drainPhase: \"3-migrating\"");
    }

    @Test
    void drainRequestsTheOperatorDrainWithTimeoutAndRefusesOtherPods() {
        Result r = run("drain", "eu1-sfu-aaaaa", "--timeout", "2m");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("drain requested (manual, timeout 120s)");
        var pod = client.pods().inNamespace("media").withName("eu1-sfu-aaaaa").get();
        assertThat(pod.getMetadata().getAnnotations()).containsEntry(ParleyApi.ANNOTATION_DRAIN_REQUESTED, "manual")
                .containsEntry(ParleyApi.ANNOTATION_DRAIN_TIMEOUT, "120");
        Result web = run("drain", "web");
        assertThat(web.code()).isEqualTo(1);
        assertThat(web.err()).contains("not a Parley SFU or TURN pod");
        Result missing = run("drain", "missing");
        assertThat(missing.err()).contains("not found");
        assertThat(missing.code()).isEqualTo(3);
    }

    @Test
    void durationsParse() {
        assertThat(DrainCommand.parse("90").toSeconds()).isEqualTo(90);
        assertThat(DrainCommand.parse("15m").toSeconds()).isEqualTo(900);
        assertThat(DrainCommand.parse("1h").toSeconds()).isEqualTo(3600);
        assertThat(DrainCommand.parse("250ms").toMillis()).isEqualTo(250);
    }
}
