package dev.parley.kubectl;

import dev.parley.operator.crd.DrainRecord;
import dev.parley.operator.crd.MediaRegion;
import dev.parley.operator.crd.MediaRegionSpec;
import dev.parley.operator.crd.MediaRegionStatus;
import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.PodLoadSummary;
import dev.parley.operator.crd.SfuPool;
import dev.parley.operator.crd.SfuPoolSpec;
import dev.parley.operator.crd.SfuPoolStatus;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Region eu2 in namespace ops as the operator would have left it: SfuPool eu2-sfu (two ACTIVE serving pods and one
 * in phase 3), the region's TURN pool eu2-turn with one pod, both PodDisruptionBudgets, and a web pod that is not
 * Parley's. Values are distinct so a test can tell which object a number came from.
 */
final class Eu2Fixture {
    static final String NS = "ops";

    private Eu2Fixture() {
    }

    static void create(KubernetesClient c) {
        SfuPool pool = new SfuPool();
        pool.setMetadata(new ObjectMetaBuilder().withName("eu2-sfu").withNamespace(NS).build());
        pool.setSpec(new SfuPoolSpec());
        pool.getSpec().region = "eu2";
        pool.getSpec().minReplicas = 2;
        pool.getSpec().drain.timeoutSeconds = 900;
        pool.getSpec().drain.migrationSeconds = 150;
        c.resources(SfuPool.class).inNamespace(NS).resource(pool).create();
        SfuPoolStatus st = new SfuPoolStatus();
        st.replicas = 3;
        st.readyReplicas = 2;
        st.drainingReplicas = 1;
        st.desiredReplicas = 2;
        st.averageLoad = 0.37;
        st.autoscaler.lastDecision = "UP 2->3";
        st.autoscaler.lastDecisionReason = "average load 0.81 > scale-up threshold 0.75";
        st.conditions.add(new ConditionBuilder().withType("Ready").withStatus("True").withReason("MinimumAvailable").build());
        st.pods.add(sfu("eu2-sfu-aaaaa", "ACTIVE", null, 0.61, 31, 93));
        st.pods.add(sfu("eu2-sfu-bbbbb", "ACTIVE", null, 0.24, 12, 36));
        st.pods.add(sfu("eu2-sfu-ccccc", "DRAINING", "3-migrating", 0.05, 2, 4));
        DrainRecord earlier = new DrainRecord();
        earlier.pod = "eu2-sfu-zzzzz";
        earlier.outcome = "emptied";
        earlier.durationSeconds = 14.5;
        st.recentDrains.add(earlier);
        pool.setStatus(st);
        c.resources(SfuPool.class).inNamespace(NS).resource(pool).updateStatus();

        MediaRegion mr = new MediaRegion();
        mr.setMetadata(new ObjectMetaBuilder().withName("eu2").withNamespace(NS).build());
        mr.setSpec(new MediaRegionSpec());
        mr.getSpec().region = "eu2";
        mr.getSpec().signalingHost = "meet.eu2.example.test";
        mr.getSpec().turnHost = "turn.eu2.example.test";
        mr.getSpec().turn.drain.timeoutSeconds = 300;
        c.resources(MediaRegion.class).inNamespace(NS).resource(mr).create();
        MediaRegionStatus ms = new MediaRegionStatus();
        ms.conditions.add(new ConditionBuilder().withType("Ready").withStatus("False").withReason("TurnDegraded").build());
        ms.turn.replicas = 1;
        ms.turn.readyReplicas = 1;
        PodLoadSummary t = new PodLoadSummary();
        t.name = "eu2-turn-ttttt";
        t.state = "ACTIVE";
        t.load = 0.45;
        t.allocations = 44L;
        t.relayedBps = 7_000_000L;
        ms.turn.pods.add(t);
        mr.setStatus(ms);
        c.resources(MediaRegion.class).inNamespace(NS).resource(mr).updateStatus();

        c.pods().inNamespace(NS).resource(mediaPod("eu2-sfu-aaaaa", "sfu", "eu2-sfu", true, null)).create();
        c.pods().inNamespace(NS).resource(mediaPod("eu2-sfu-bbbbb", "sfu", "eu2-sfu", true, null)).create();
        c.pods().inNamespace(NS).resource(mediaPod("eu2-sfu-ccccc", "sfu", "eu2-sfu", false, "3-migrating")).create();
        c.pods().inNamespace(NS).resource(mediaPod("eu2-turn-ttttt", "turn", "eu2-turn", true, null)).create();
        c.pods().inNamespace(NS).resource(new PodBuilder().withNewMetadata().withName("web").endMetadata().withNewSpec()
                .addNewContainer().withName("web").withImage("x").endContainer().endSpec().build()).create();
        pdb(c, "eu2-sfu-sfu", "sfu", "eu2-sfu");
        pdb(c, "eu2-turn", "turn", "eu2-turn");
    }

    static PodLoadSummary sfu(String name, String state, String phase, double load, long transports, long subscriptions) {
        PodLoadSummary s = new PodLoadSummary();
        s.name = name;
        s.state = state;
        s.drainPhase = phase;
        s.load = load;
        s.transports = transports;
        s.subscriptions = subscriptions;
        s.egressBps = 1000L * transports;
        s.pps = 10L * transports;
        return s;
    }

    static Pod mediaPod(String name, String component, String pool, boolean serving, String phase) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(ParleyApi.LABEL_COMPONENT, component);
        labels.put(ParleyApi.LABEL_POOL, pool);
        labels.put(ParleyApi.LABEL_REGION, "eu2");
        labels.put(ParleyApi.LABEL_SERVING, String.valueOf(serving));
        PodBuilder b = new PodBuilder().withNewMetadata().withName(name).withNamespace(NS).withLabels(labels).endMetadata()
                .withNewSpec().addNewContainer().withName(component).withImage("x").endContainer().endSpec();
        Pod p = b.build();
        if (phase != null) {
            p.getMetadata().setAnnotations(new LinkedHashMap<>(Map.of(ParleyApi.ANNOTATION_DRAIN_PHASE, phase)));
        }
        return p;
    }

    private static void pdb(KubernetesClient c, String name, String component, String pool) {
        c.policy().v1().podDisruptionBudget().inNamespace(NS).resource(new PodDisruptionBudgetBuilder()
                .withNewMetadata().withName(name).withNamespace(NS).endMetadata()
                .withNewSpec().withMaxUnavailable(new IntOrString(1)).withNewSelector()
                .withMatchLabels(Map.of(ParleyApi.LABEL_COMPONENT, component, ParleyApi.LABEL_POOL, pool, ParleyApi.LABEL_SERVING, "true"))
                .endSelector().endSpec().build()).create();
    }
}
