package dev.parley.kubectl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.parley.operator.crd.DrainRecord;
import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.SfuPool;
import dev.parley.operator.crd.SfuPoolSpec;
import dev.parley.operator.crd.SfuPoolStatus;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code drain} against the mock API server: the dry-run plan in every output format (and nothing changed), the
 * real request's result document, and {@code --wait} progress and timeout.
 */
class DrainFormatsTest {
    static MockCluster k8s;
    @TempDir
    static Path tmp;
    static final String NS = Eu2Fixture.NS;

    @BeforeAll
    static void start() throws Exception {
        k8s = new MockCluster(tmp, NS);
        Eu2Fixture.create(k8s.client);
    }

    @AfterAll
    static void stop() {
        k8s.close();
    }

    /** Every object the plugin reads, as the API server serves it (resourceVersions included). */
    private static List<String> snapshot() throws Exception {
        List<String> s = new ArrayList<>();
        for (String path : List.of("/api/v1/namespaces/ops/pods", "/apis/parley.dev/v1alpha1/namespaces/ops/sfupools",
                "/apis/parley.dev/v1alpha1/namespaces/ops/mediaregions", "/apis/policy/v1/namespaces/ops/poddisruptionbudgets")) {
            s.add(k8s.raw(path));
        }
        return s;
    }

    @Test
    void dryRunInEveryFormatPrintsThePlanAndChangesNothing() throws Exception {
        List<String> before = snapshot();
        MockCluster.Result table = k8s.run("drain", "eu2-sfu-aaaaa", "--dry-run");
        MockCluster.Result wide = k8s.run("drain", "eu2-sfu-aaaaa", "--dry-run=client", "-o", "wide");
        MockCluster.Result json = k8s.run("drain", "eu2-sfu-aaaaa", "--dry-run", "-o", "json");
        MockCluster.Result yaml = k8s.run("drain", "eu2-sfu-aaaaa", "--dry-run=client", "--timeout", "2m", "-o", "yaml");
        assertThat(snapshot()).isEqualTo(before);
        for (MockCluster.Result r : List.of(table, wide, json, yaml)) {
            assertThat(r.code()).as(r.out() + r.err()).isZero();
            assertThat(r.err()).isEmpty();
        }

        assertThat(table.out()).contains("pod/eu2-sfu-aaaaa would be drained (dry run: client, nothing changed)")
                .contains("sfu eu2-sfu (region eu2)").contains("31 to move (transports 31")
                .contains("budget:      900s (pool's drain.timeoutSeconds), migration 150s")
                .contains("eu2-sfu-sfu: serving pods 2 now, 1 while draining; node drains may still evict 1 of them")
                .containsPattern("MOVE TO\\nPOD\\s+LOAD\\s+CONNS\\neu2-sfu-bbbbb\\s+0.24\\s+12\\n")
                .contains("annotate pod/eu2-sfu-aaaaa parley.dev/drain-requested=manual")
                .contains("warning: while it drains the pool serves with 1 pod(s), below minReplicas 2")
                .doesNotContain("eu2-sfu-ccccc").doesNotContain("EGRESS_BPS");
        assertThat(wide.out()).containsPattern("POD\\s+LOAD\\s+CONNS\\s+EGRESS_BPS\\s+SUBS\\neu2-sfu-bbbbb\\s+0.24\\s+12\\s+12000\\s+36");

        JsonNode j = new ObjectMapper().readTree(json.out());
        assertThat(j.path("apiVersion").asText()).isEqualTo("kubectl.parley.dev/v1");
        assertThat(j.path("kind").asText()).isEqualTo("DrainPlan");
        assertThat(j.path("dryRun").asText()).isEqualTo("client");
        assertThat(j.path("pod").path("name").asText()).isEqualTo("eu2-sfu-aaaaa");
        assertThat(j.path("pod").path("pool").asText()).isEqualTo("eu2-sfu");
        assertThat(j.path("pod").path("state").asText()).isEqualTo("ACTIVE");
        assertThat(j.path("pod").path("alreadyDraining").asBoolean()).isFalse();
        assertThat(j.path("sessions").path("connections").asLong()).isEqualTo(31);
        assertThat(j.path("sessions").path("subscriptions").asLong()).isEqualTo(93);
        assertThat(j.path("moveTo")).hasSize(1);
        assertThat(j.path("moveTo").get(0).path("pod").asText()).isEqualTo("eu2-sfu-bbbbb");
        assertThat(j.path("budget").path("timeoutSeconds").asInt()).isEqualTo(900);
        assertThat(j.path("budget").path("timeoutSource").asText()).isEqualTo("pool");
        assertThat(j.path("budget").path("migrationSeconds").asInt()).isEqualTo(150);
        assertThat(j.path("pdb").path("name").asText()).isEqualTo("eu2-sfu-sfu");
        assertThat(j.path("pdb").path("found").asBoolean()).isTrue();
        assertThat(j.path("pdb").path("maxUnavailable").asText()).isEqualTo("1");
        assertThat(j.path("pdb").path("servingPodsNow").asInt()).isEqualTo(2);
        assertThat(j.path("pdb").path("servingPodsDuringDrain").asInt()).isEqualTo(1);
        assertThat(j.path("pdb").path("minReplicas").asInt()).isEqualTo(2);
        assertThat(j.path("actions").get(0).asText()).isEqualTo("annotate pod/eu2-sfu-aaaaa parley.dev/drain-requested=manual");

        JsonNode y = new ObjectMapper(new YAMLFactory()).readTree(yaml.out());
        assertThat(y.path("kind").asText()).isEqualTo("DrainPlan");
        assertThat(y.path("budget").path("timeoutSeconds").asInt()).isEqualTo(120);
        assertThat(y.path("budget").path("timeoutSource").asText()).isEqualTo("flag");
        assertThat(y.path("actions").get(1).asText()).isEqualTo("annotate pod/eu2-sfu-aaaaa parley.dev/drain-timeout-seconds=120");
        assertThat(y.path("sessions")).isEqualTo(j.path("sessions"));
    }

    @Test
    void dryRunOfTheOnlyTurnPodWarnsThatNothingCanTakeItsAllocations() throws Exception {
        List<String> before = snapshot();
        MockCluster.Result r = k8s.run("drain", "eu2-turn-ttttt", "--dry-run", "-o", "json");
        assertThat(snapshot()).isEqualTo(before);
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertThat(j.path("pod").path("component").asText()).isEqualTo("turn");
        assertThat(j.path("pod").path("pool").asText()).isEqualTo("eu2-turn");
        assertThat(j.path("sessions").path("allocations").asLong()).isEqualTo(44);
        assertThat(j.path("moveTo")).isEmpty();
        assertThat(j.path("budget").path("timeoutSeconds").asInt()).isEqualTo(300);
        assertThat(j.path("pdb").path("name").asText()).isEqualTo("eu2-turn");
        assertThat(j.path("pdb").path("servingPodsDuringDrain").asInt()).isZero();
        assertThat(j.path("warnings").toString()).contains("no other ACTIVE pod in pool eu2-turn")
                .contains("below minReplicas 1");
    }

    @Test
    void dryRunOfAPodAlreadyDrainingSaysNothingWouldChange() throws Exception {
        MockCluster.Result r = k8s.run("drain", "eu2-sfu-ccccc", "--dry-run", "-o", "yaml");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode y = new ObjectMapper(new YAMLFactory()).readTree(r.out());
        assertThat(y.path("pod").path("alreadyDraining").asBoolean()).isTrue();
        assertThat(y.path("pod").path("drainPhase").asText()).isEqualTo("3-migrating");
        assertThat(y.path("actions")).isEmpty();
        assertThat(y.path("warnings").toString()).contains("already draining (phase 3-migrating)");
    }

    @Test
    void serverDryRunSendsTheChangeWithDryRunAll() throws Exception {
        while (k8s.server.takeRequest(1, TimeUnit.MILLISECONDS) != null) {
            // forget the requests of earlier tests
        }
        MockCluster.Result r = k8s.run("drain", "eu2-sfu-bbbbb", "--dry-run=server", "-o", "json");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(new ObjectMapper().readTree(r.out()).path("dryRun").asText()).isEqualTo("server");
        List<RecordedRequest> writes = new ArrayList<>();
        for (RecordedRequest q; (q = k8s.server.takeRequest(1, TimeUnit.MILLISECONDS)) != null; ) {
            if (!q.getMethod().equals("GET")) {
                writes.add(q);
            }
        }
        assertThat(writes).hasSize(1);
        assertThat(writes.get(0).getMethod()).isEqualTo("PATCH");
        assertThat(writes.get(0).getPath()).contains("/namespaces/ops/pods/eu2-sfu-bbbbb").contains("dryRun=All");
        // a real API server validates and authorizes it and persists nothing; the mock ignores dryRun and applied
        // it (which shows what the patch was), so undo it
        assertThat(k8s.client.pods().inNamespace(NS).withName("eu2-sfu-bbbbb").get().getMetadata().getAnnotations())
                .containsEntry(ParleyApi.ANNOTATION_DRAIN_REQUESTED, "manual");
        k8s.client.pods().inNamespace(NS).withName("eu2-sfu-bbbbb").edit(p -> {
            p.getMetadata().getAnnotations().remove(ParleyApi.ANNOTATION_DRAIN_REQUESTED);
            return p;
        });
    }

    @Test
    void realDrainPrintsItsResultDocumentAndKeepsProgressOffStdout() throws Exception {
        k8s.client.pods().inNamespace(NS).resource(Eu2Fixture.mediaPod("eu2-sfu-ddddd", "sfu", "eu2-sfu", true, null)).create();
        MockCluster.Result r = k8s.run("drain", "eu2-sfu-ddddd", "--timeout", "90s", "--reason", "kernel-update", "-o", "json");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertThat(j.path("kind").asText()).isEqualTo("DrainResult");
        assertThat(j.path("pod").asText()).isEqualTo("eu2-sfu-ddddd");
        assertThat(j.path("namespace").asText()).isEqualTo(NS);
        assertThat(j.path("action").asText()).isEqualTo("requested");
        assertThat(j.path("reason").asText()).isEqualTo("kernel-update");
        assertThat(j.path("timeoutSeconds").asInt()).isEqualTo(90);
        assertThat(j.path("waited").isNull()).isTrue();
        assertThat(r.err()).contains("pod/eu2-sfu-ddddd drain requested (kernel-update, timeout 90s)");
        assertThat(k8s.client.pods().inNamespace(NS).withName("eu2-sfu-ddddd").get().getMetadata().getAnnotations())
                .containsEntry(ParleyApi.ANNOTATION_DRAIN_REQUESTED, "kernel-update")
                .containsEntry(ParleyApi.ANNOTATION_DRAIN_TIMEOUT, "90");

        MockCluster.Result again = k8s.run("drain", "eu2-sfu-ccccc", "-o", "yaml");
        JsonNode y = new ObjectMapper(new YAMLFactory()).readTree(again.out());
        assertThat(y.path("action").asText()).isEqualTo("already-draining");
        assertThat(y.path("phase").asText()).isEqualTo("3-migrating");
        MockCluster.Result wide = k8s.run("drain", "eu2-sfu-ccccc", "-o", "wide");
        assertThat(wide.out()).contains("pod/eu2-sfu-ccccc already draining: phase 3-migrating");
    }

    @Test
    void waitShowsPhasesAndSessionsLeftUntilThePodIsGone() throws Exception {
        // own pool, so its status changes don't show in the other tests
        SfuPool pool = new SfuPool();
        pool.setMetadata(new ObjectMetaBuilder().withName("eu2-wait").withNamespace(NS).build());
        pool.setSpec(new SfuPoolSpec());
        pool.getSpec().region = "eu2";
        k8s.client.resources(SfuPool.class).inNamespace(NS).resource(pool).create();
        setStatus(5, null);
        k8s.client.pods().inNamespace(NS).resource(Eu2Fixture.mediaPod("eu2-wait-eeeee", "sfu", "eu2-wait", true, null)).create();
        // stands in for the operator: phase 3, sessions leave, phase 5, pod deleted and the drain recorded
        var operator = Executors.newSingleThreadExecutor();
        CompletableFuture<Void> done = CompletableFuture.runAsync(() -> {
            var pod = k8s.client.pods().inNamespace(NS).withName("eu2-wait-eeeee");
            await().atMost(Duration.ofSeconds(30)).until(() -> pod.get().getMetadata().getAnnotations() != null
                    && pod.get().getMetadata().getAnnotations().containsKey(ParleyApi.ANNOTATION_DRAIN_REQUESTED));
            phase("3-migrating");
            sleep(700);
            setStatus(1, "3-migrating");
            sleep(700);
            setStatus(0, "5-cleanup");
            phase("5-cleanup");
            sleep(700);
            DrainRecord d = new DrainRecord();
            d.pod = "eu2-wait-eeeee";
            d.outcome = "emptied";
            d.durationSeconds = 2.1;
            d.remainingConnections = 0L;
            SfuPool p = k8s.client.resources(SfuPool.class).inNamespace(NS).withName("eu2-wait").get();
            p.getStatus().recentDrains.add(d);
            k8s.client.resources(SfuPool.class).inNamespace(NS).resource(p).updateStatus();
            pod.delete();
        }, operator);
        operator.shutdown();
        MockCluster.Result r = k8s.run("drain", "eu2-wait-eeeee", "--wait", "--wait-timeout", "60s", "--poll-interval", "100ms",
                "-o", "json");
        done.get(60, TimeUnit.SECONDS);
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.err()).contains("drain requested (manual)").contains("waiting up to 60s").contains("phase 3/5 migrating")
                .contains("sessions left: 5").contains("sessions left: 1").contains("sessions left: 0")
                .contains("phase 5/5 cleanup").contains("drained and removed after");
        JsonNode w = new ObjectMapper().readTree(r.out()).path("waited");
        assertThat(w.path("outcome").asText()).isEqualTo("removed");
        assertThat(w.path("phases").findValuesAsText("phase")).containsExactly("3-migrating", "5-cleanup");
        assertThat(w.path("lastPhase").asText()).isEqualTo("5-cleanup");
        assertThat(w.path("sessionsLeft").asLong()).isZero();
        assertThat(w.path("finished").path("outcome").asText()).isEqualTo("emptied");
    }

    @Test
    void waitThatRunsOutExitsWithTimedOutAndSaysWhereTheDrainWas() throws Exception {
        k8s.client.pods().inNamespace(NS).resource(Eu2Fixture.mediaPod("eu2-sfu-fffff", "sfu", "eu2-sfu", true, "2-unrouted")).create();
        MockCluster.Result r = k8s.run("drain", "eu2-sfu-fffff", "--wait", "--wait-timeout", "1s", "--poll-interval", "100ms");
        assertThat(r.code()).isEqualTo(5);
        assertThat(r.out()).contains("already draining: phase 2-unrouted").contains("phase 2/5 unrouted");
        assertThat(r.err()).contains("error: timed out after 1s waiting for eu2-sfu-fffff (last phase 2-unrouted");
        MockCluster.Result json = k8s.run("drain", "eu2-sfu-fffff", "--wait", "--wait-timeout", "1s", "--poll-interval", "100ms",
                "-o", "json");
        assertThat(json.code()).isEqualTo(5);
        assertThat(new ObjectMapper().readTree(json.out()).path("waited").path("outcome").asText()).isEqualTo("timed-out");
    }

    private static void phase(String phase) {
        k8s.client.pods().inNamespace(NS).withName("eu2-wait-eeeee").edit(p -> {
            p.getMetadata().getAnnotations().put(ParleyApi.ANNOTATION_DRAIN_PHASE, phase);
            return p;
        });
    }

    private static void setStatus(long transports, String phase) {
        SfuPool p = k8s.client.resources(SfuPool.class).inNamespace(NS).withName("eu2-wait").get();
        SfuPoolStatus st = p.getStatus() == null ? new SfuPoolStatus() : p.getStatus();
        st.pods.clear();
        st.pods.add(Eu2Fixture.sfu("eu2-wait-eeeee", phase == null ? "ACTIVE" : "DRAINING", phase, 0.1, transports, 0));
        p.setStatus(st);
        k8s.client.resources(SfuPool.class).inNamespace(NS).resource(p).updateStatus();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
