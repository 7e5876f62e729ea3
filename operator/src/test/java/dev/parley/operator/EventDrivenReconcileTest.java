package dev.parley.operator;

import static dev.parley.operator.support.Pools.podNames;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.parley.operator.crd.MediaRegion;
import dev.parley.operator.crd.SfuPool;
import dev.parley.operator.support.OperatorHarness;
import dev.parley.operator.support.Pools;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Changes to the pods, Services and PDBs the operator owns trigger a reconcile at once. The registry poll is set to
 * 60 s here, so anything that happens within the few seconds these tests allow was started by a watch event.
 */
class EventDrivenReconcileTest {
    static final Duration RESYNC = Duration.ofSeconds(60);
    static final Duration BOUND = Duration.ofSeconds(5);
    static OperatorHarness h;

    @BeforeAll
    static void start() throws Exception {
        h = new OperatorHarness(RESYNC);
    }

    @AfterAll
    static void stop() throws Exception {
        h.close();
    }

    @Test
    void aDeletedPodIsReplacedWithoutWaitingForTheResync() {
        String ns = "ev-pods";
        h.client.resources(SfuPool.class).inNamespace(ns).resource(Pools.sfuPool(ns, "pool", "r-ev", 2, 4)).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> podNames(h.client, ns, "sfu", "pool").size() == 2);
        List<String> before = podNames(h.client, ns, "sfu", "pool");

        long t0 = System.nanoTime();
        h.client.pods().inNamespace(ns).withName(before.get(0)).delete();
        await().atMost(BOUND).pollInterval(Duration.ofMillis(20)).until(() -> {
            List<String> now = podNames(h.client, ns, "sfu", "pool");
            return now.size() == 2 && !now.contains(before.get(0));
        });
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("EventDrivenReconcileTest: deleted pod replaced after " + ms + " ms (registry poll "
                + RESYNC.toSeconds() + " s)");
        assertThat(ms).isLessThan(BOUND.toMillis());
    }

    @Test
    void servicesAndPdbsChangedByHandAreRestored() {
        String ns = "ev-owned";
        h.client.resources(SfuPool.class).inNamespace(ns).resource(Pools.sfuPool(ns, "pool", "r-own", 2, 4)).create();
        h.client.resources(MediaRegion.class).inNamespace(ns)
                .resource(Pools.region(ns, "eu", "r-own", List.of("pool"))).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> service(ns, "eu-signaling") != null
                && service(ns, "eu-turn") != null && pdb(ns, "eu-turn") != null && pdb(ns, "pool-sfu") != null);
        Map<String, String> signalingSelector = service(ns, "eu-signaling").getSpec().getSelector();
        Map<String, String> turnPdbSelector = pdb(ns, "eu-turn").getSpec().getSelector().getMatchLabels();
        Map<String, String> sfuPdbSelector = pdb(ns, "pool-sfu").getSpec().getSelector().getMatchLabels();

        Map<String, String> wrong = Map.of("app.kubernetes.io/name", "changed-by-hand");
        h.client.services().inNamespace(ns).withName("eu-signaling").edit(s -> {
            s.getSpec().setSelector(wrong);
            return s;
        });
        h.client.policy().v1().podDisruptionBudget().inNamespace(ns).withName("eu-turn").edit(p -> {
            p.getSpec().getSelector().setMatchLabels(wrong);
            return p;
        });
        h.client.policy().v1().podDisruptionBudget().inNamespace(ns).withName("pool-sfu").edit(p -> {
            p.getSpec().getSelector().setMatchLabels(wrong);
            return p;
        });
        h.client.services().inNamespace(ns).withName("eu-turn").delete();

        await().atMost(BOUND).untilAsserted(() -> {
            assertThat(service(ns, "eu-signaling").getSpec().getSelector()).isEqualTo(signalingSelector);
            assertThat(pdb(ns, "eu-turn").getSpec().getSelector().getMatchLabels()).isEqualTo(turnPdbSelector);
            assertThat(pdb(ns, "pool-sfu").getSpec().getSelector().getMatchLabels()).isEqualTo(sfuPdbSelector);
            assertThat(service(ns, "eu-turn")).isNotNull();
        });
    }

    private static Service service(String ns, String name) {
        return h.client.services().inNamespace(ns).withName(name).get();
    }

    private static PodDisruptionBudget pdb(String ns, String name) {
        return h.client.policy().v1().podDisruptionBudget().inNamespace(ns).withName(name).get();
    }
}
