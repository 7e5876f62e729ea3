package dev.parley.operator;

import static dev.parley.operator.support.Pools.annotation;
import static dev.parley.operator.support.Pools.podNames;
import static dev.parley.operator.support.Pools.pods;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.SfuPool;
import dev.parley.operator.metrics.OperatorMetrics;
import dev.parley.operator.support.OperatorHarness;
import dev.parley.operator.support.Pools;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The operator on the mock API server (CRUD mode) scaling and draining an SFU pool from real etcd load. */
class SfuPoolOperatorTest {
    static OperatorHarness h;

    @BeforeAll
    static void start() throws Exception {
        h = new OperatorHarness();
    }

    @AfterAll
    static void stop() throws Exception {
        h.close();
    }

    private SfuPool get(String ns, String name) {
        return h.client.resources(SfuPool.class).inNamespace(ns).withName(name).get();
    }

    private List<String> waitForPods(String ns, String pool, int n) {
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> podNames(h.client, ns, "sfu", pool).size() == n);
        return podNames(h.client, ns, "sfu", pool);
    }

    @Test
    void scalesUpOnLoadAndRecordsTheDecision() throws Exception {
        String ns = "up";
        h.client.resources(SfuPool.class).inNamespace(ns).resource(Pools.sfuPool(ns, "pool", "r-up", 2, 6)).create();
        List<String> first = waitForPods(ns, "pool", 2);

        // Idle pods: the pool stays at minReplicas.
        for (String p : first) {
            h.registry.sfu("r-up", p, "ACTIVE", 0.4, 10);
        }
        Thread.sleep(1500);
        assertThat(podNames(h.client, ns, "sfu", "pool")).hasSize(2);

        for (String p : first) {
            h.registry.sfu("r-up", p, "ACTIVE", 0.9, 40);
        }
        // total 1.8 / target 0.5 = 4 pods, within the step limit of 2
        waitForPods(ns, "pool", 4);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> {
            SfuPool pool = get(ns, "pool");
            assertThat(pool.getStatus().desiredReplicas).isEqualTo(4);
            assertThat(pool.getStatus().replicas).isEqualTo(4);
            assertThat(pool.getStatus().autoscaler.lastDecision).isEqualTo("UP 2->4");
            assertThat(pool.getStatus().autoscaler.lastDecisionReason).contains("0.90").contains("scale-up threshold 0.70");
            assertThat(pool.getStatus().selector).isEqualTo("parley.dev/component=sfu,parley.dev/pool=pool");
        });
        List<Event> up = h.eventsAbout(ns, "pool", "ScalingUp");
        assertThat(up).hasSize(1);
        assertThat(up.get(0).getMessage()).contains("2 -> 4").contains("average load 0.90");
        // ... and in the Prometheus metrics
        String metrics = h.metrics().render();
        assertThat(metrics).contains("# TYPE parley_operator_scale_decisions_total counter")
                .contains("parley_operator_scale_decisions_total{kind=\"SFU\",namespace=\"up\",pool=\"pool\",direction=\"UP\"} 1")
                .contains("parley_operator_pool_pods{kind=\"SFU\",namespace=\"up\",pool=\"pool\"} 4");
        assertThat(h.metrics().value("parley_operator_reconciles_total",
                OperatorMetrics.labels("kind", "SfuPool", "result", "success"))).isPositive();

        // New pods are owned by the pool, unrouted until they register, and carry probes and the readiness gate.
        Pod p = pods(h.client, ns, "sfu", "pool").get(0);
        assertThat(p.getMetadata().getOwnerReferences().get(0).getKind()).isEqualTo("SfuPool");
        assertThat(p.getSpec().getReadinessGates().get(0).getConditionType()).isEqualTo(ParleyApi.READINESS_GATE);
        assertThat(p.getSpec().getContainers().get(0).getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");

        // status conditions carry observedGeneration
        SfuPool pool = get(ns, "pool");
        Condition ready = pool.getStatus().conditions.stream().filter(c -> c.getType().equals("Ready")).findFirst().orElseThrow();
        assertThat(ready.getObservedGeneration()).isEqualTo(pool.getMetadata().getGeneration());
        assertThat(ready.getStatus()).isEqualTo("True");
        assertThat(ready.getLastTransitionTime()).isNotBlank();
        // the two registered pods report ACTIVE via the readiness gate condition
        Pod registered = h.client.pods().inNamespace(ns).withName(first.get(0)).get();
        assertThat(registered.getStatus().getConditions()).anyMatch(c -> c.getType().equals(ParleyApi.READINESS_GATE)
                && c.getStatus().equals("True"));
    }

    @Test
    void scaleDownDrainsTheLeastLoadedPodAndNeverDeletesItWhileItCarriesMeetings() throws Exception {
        String ns = "down";
        SfuPool spec = Pools.sfuPool(ns, "pool", "r-down", 2, 6);
        spec.getSpec().autoscaling.scaleDownStabilizationSeconds = 2;
        h.client.resources(SfuPool.class).inNamespace(ns).resource(spec).create();
        List<String> pods = waitForPods(ns, "pool", 2);
        for (String p : pods) {
            h.registry.sfu("r-down", p, "ACTIVE", 0.95, 50);
        }
        List<String> four = waitForPods(ns, "pool", 4);
        // load falls: three pods at 0.2, the least loaded at 0.05 but still carrying 3 transports (a meeting)
        String least = four.get(2);
        for (String p : four) {
            h.registry.sfu("r-down", p, "ACTIVE", p.equals(least) ? 0.05 : 0.2, p.equals(least) ? 3 : 20);
        }
        Instant lowFrom = Instant.now();
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() ->
                annotation(h.client.pods().inNamespace(ns).withName(least).get(), ParleyApi.ANNOTATION_DRAIN_PHASE) != null);
        assertThat(Duration.between(lowFrom, Instant.now())).as("scale-down stabilization honoured")
                .isGreaterThanOrEqualTo(Duration.ofMillis(1500));
        // only the least loaded pod is draining
        for (String p : four) {
            if (!p.equals(least)) {
                assertThat(annotation(h.client.pods().inNamespace(ns).withName(p).get(), ParleyApi.ANNOTATION_DRAIN_PHASE)).isNull();
            }
        }
        // the rest of the pool is now comfortably loaded: no further scale-down
        for (String p : four) {
            if (!p.equals(least)) {
                h.registry.sfu("r-down", p, "ACTIVE", 0.45, 20);
            }
        }
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> {
            Pod d = h.client.pods().inNamespace(ns).withName(least).get();
            assertThat(annotation(d, ParleyApi.ANNOTATION_DRAIN_PHASE)).isEqualTo("3-migrating");
            assertThat(d.getMetadata().getLabels()).containsEntry(ParleyApi.LABEL_SERVING, "false");
        });
        // phase 1 wrote DRAINING into the pod's own registry entry, keeping its lease
        String key = "/parley/v1/regions/r-down/sfu/" + least;
        assertThat(h.registry.get(key).orElseThrow()).contains("\"state\":\"DRAINING\"");
        assertThat(h.registry.leaseOf(key)).isEqualTo(h.registry.lease());

        // While meetings remain the pod stays, however often the operator reconciles.
        Thread.sleep(2000);
        assertThat(h.client.pods().inNamespace(ns).withName(least).get()).isNotNull();
        SfuPool mid = get(ns, "pool");
        assertThat(mid.getStatus().drainingReplicas).isEqualTo(1);
        assertThat(h.metrics().value("parley_operator_drains_in_progress",
                OperatorMetrics.labels("kind", "SFU", "namespace", ns, "pool", "pool"))).isEqualTo(1.0);
        assertThat(mid.getStatus().pods).anyMatch(s -> s.name.equals(least) && "3-migrating".equals(s.drainPhase));

        // Owners moved the meeting: zero transports -> phase 5 deletes the pod and its registry entry.
        h.registry.sfu("r-down", least, "DRAINING", 0.0, 0);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> h.client.pods().inNamespace(ns).withName(least).get() == null);
        assertThat(h.registry.get(key)).isEmpty();
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> {
            SfuPool after = get(ns, "pool");
            assertThat(after.getStatus().recentDrains).isNotEmpty();
            assertThat(after.getStatus().recentDrains.get(0).pod).isEqualTo(least);
            assertThat(after.getStatus().recentDrains.get(0).outcome).isEqualTo("emptied");
            assertThat(after.getStatus().recentDrains.get(0).durationSeconds).isGreaterThan(1.5);
        });
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> !h.eventsAbout(ns, "pool", "Drained").isEmpty());
        List<String> phases = h.events(ns).stream().filter(e -> e.getInvolvedObject().getName().equals(least))
                .map(Event::getReason).toList();
        assertThat(phases).contains("DrainPhase1Draining", "DrainPhase2Unrouted", "DrainPhase3Migrating", "DrainPhase5Cleanup");
        assertThat(h.eventsAbout(ns, "pool", "Drained")).singleElement()
                .satisfies(e -> assertThat(e.getMessage()).contains(least).contains("emptied"));
        assertThat(h.eventsAbout(ns, "pool", "ScalingDown")).isNotEmpty();
        assertThat(h.metrics().value("parley_operator_drains_finished_total",
                OperatorMetrics.labels("kind", "SFU", "namespace", ns, "pool", "pool", "outcome", "emptied"))).isEqualTo(1.0);
    }

    @Test
    void busyPodIsCutOnlyWhenTheDrainTimeoutEnds() throws Exception {
        String ns = "timeout";
        SfuPool spec = Pools.sfuPool(ns, "pool", "r-to", 2, 4);
        spec.getSpec().drain.timeoutSeconds = 4;
        spec.getSpec().drain.migrationSeconds = 1;
        h.client.resources(SfuPool.class).inNamespace(ns).resource(spec).create();
        List<String> pods = waitForPods(ns, "pool", 2);
        for (String p : pods) {
            h.registry.sfu("r-to", p, "ACTIVE", 0.5, 12);
        }
        String victim = pods.get(0);
        // A platform engineer asks for a drain (what kubectl-parley drain does).
        Pools.requestDrain(h.client, ns, victim, "manual");
        Instant asked = Instant.now();
        // A replacement comes up while the victim drains (draining pods don't count towards the target).
        waitForPods(ns, "pool", 3);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> "4-grace".equals(
                annotation(h.client.pods().inNamespace(ns).withName(victim).get(), ParleyApi.ANNOTATION_DRAIN_PHASE)));
        assertThat(h.client.pods().inNamespace(ns).withName(victim).get()).isNotNull();
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> h.client.pods().inNamespace(ns).withName(victim).get() == null);
        assertThat(Duration.between(asked, Instant.now())).isGreaterThanOrEqualTo(Duration.ofSeconds(4));
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> assertThat(h.eventsAbout(ns, "pool", "DrainTimedOut"))
                .singleElement().satisfies(e -> assertThat(e.getMessage()).contains("12 connections left")));
    }

    @Test
    void podThatDiesMidDrainIsRecordedAndItsRegistryEntryRemoved() throws Exception {
        String ns = "dies";
        h.client.resources(SfuPool.class).inNamespace(ns).resource(Pools.sfuPool(ns, "pool", "r-dies", 2, 4)).create();
        List<String> pods = waitForPods(ns, "pool", 2);
        for (String p : pods) {
            h.registry.sfu("r-dies", p, "ACTIVE", 0.5, 8);
        }
        String victim = pods.get(1);
        Pools.requestDrain(h.client, ns, victim, "manual");
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> get(ns, "pool").getStatus().pods.stream()
                .anyMatch(s -> s.name.equals(victim) && "3-migrating".equals(s.drainPhase)));
        // the node goes away with the pod
        h.client.pods().inNamespace(ns).withName(victim).delete();
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> !h.eventsAbout(ns, "pool", "DrainInterrupted").isEmpty());
        assertThat(h.registry.get("/parley/v1/regions/r-dies/sfu/" + victim)).isEmpty();
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() ->
                assertThat(get(ns, "pool").getStatus().recentDrains).anyMatch(r -> r.pod.equals(victim) && r.outcome.equals("pod-gone")));
    }

    @Test
    void podWhoseRegistryLeaseLapsedIsReplaced() throws Exception {
        String ns = "lapsed";
        h.client.resources(SfuPool.class).inNamespace(ns).resource(Pools.sfuPool(ns, "pool", "r-lapsed", 2, 4)).create();
        List<String> pods = waitForPods(ns, "pool", 2);
        for (String p : pods) {
            h.registry.sfu("r-lapsed", p, "ACTIVE", 0.4, 3);
        }
        String dead = pods.get(0);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> annotation(
                h.client.pods().inNamespace(ns).withName(dead).get(), ParleyApi.ANNOTATION_REGISTERED_AT) != null);
        // the process died: its lease expired and etcd dropped the entry
        h.registry.delete("/parley/v1/regions/r-lapsed/sfu/" + dead);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> h.client.pods().inNamespace(ns).withName(dead).get() == null);
        assertThat(h.eventsAbout(ns, "pool", "PodReplaced")).singleElement()
                .satisfies(e -> assertThat(e.getMessage()).contains(dead).contains("LeaseLapsed"));
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> podNames(h.client, ns, "sfu", "pool").size() == 2
                && !podNames(h.client, ns, "sfu", "pool").contains(dead));
    }
}
