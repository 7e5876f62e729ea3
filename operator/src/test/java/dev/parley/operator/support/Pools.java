package dev.parley.operator.support;

import dev.parley.operator.crd.MediaRegion;
import dev.parley.operator.crd.MediaRegionSpec;
import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.SfuPool;
import dev.parley.operator.crd.SfuPoolSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/** Small builders for test resources with short windows. */
public final class Pools {
    private Pools() {
    }

    public static SfuPool sfuPool(String ns, String name, String region, int min, int max) {
        SfuPool p = new SfuPool();
        p.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(ns).build());
        SfuPoolSpec s = new SfuPoolSpec();
        s.region = region;
        s.minReplicas = min;
        s.maxReplicas = max;
        s.autoscaling.scaleUpThreshold = 0.7;
        s.autoscaling.scaleDownThreshold = 0.3;
        s.autoscaling.targetLoad = 0.5;
        s.autoscaling.scaleUpCooldownSeconds = 0;
        s.autoscaling.scaleDownCooldownSeconds = 0;
        s.autoscaling.scaleDownStabilizationSeconds = 3600;
        s.drain.timeoutSeconds = 60;
        s.drain.migrationSeconds = 30;
        p.setSpec(s);
        return p;
    }

    public static MediaRegion region(String ns, String name, String region, List<String> pools) {
        MediaRegion r = new MediaRegion();
        r.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(ns).build());
        MediaRegionSpec s = new MediaRegionSpec();
        s.region = region;
        s.signalingHost = "meet." + region + ".example.test";
        s.turnHost = "turn." + region + ".example.test";
        s.sfuPools = pools;
        s.turn.minReplicas = 1;
        s.turn.maxReplicas = 4;
        s.turn.autoscaling.allocationsPerPod = 100L;
        s.turn.autoscaling.scaleUpThreshold = 0.7;
        s.turn.autoscaling.scaleDownThreshold = 0.2;
        s.turn.autoscaling.targetLoad = 0.5;
        s.turn.autoscaling.scaleUpCooldownSeconds = 0;
        s.turn.autoscaling.scaleDownStabilizationSeconds = 3600;
        r.setSpec(s);
        return r;
    }

    public static List<Pod> pods(KubernetesClient c, String ns, String component, String pool) {
        return c.pods().inNamespace(ns).withLabel(ParleyApi.LABEL_COMPONENT, component).withLabel(ParleyApi.LABEL_POOL, pool)
                .list().getItems();
    }

    public static List<String> podNames(KubernetesClient c, String ns, String component, String pool) {
        return pods(c, ns, component, pool).stream().map(p -> p.getMetadata().getName()).sorted().toList();
    }

    /** What kubectl-parley drain does, retried on conflicts with the operator's own pod updates. */
    public static void requestDrain(KubernetesClient c, String ns, String pod, String reason) {
        for (int attempt = 1; ; attempt++) {
            try {
                c.pods().inNamespace(ns).withName(pod).edit(p -> {
                    p.getMetadata().getAnnotations().put(ParleyApi.ANNOTATION_DRAIN_REQUESTED, reason);
                    return p;
                });
                return;
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                if (e.getCode() != 409 || attempt >= 10) {
                    throw e;
                }
            }
        }
    }

    public static String annotation(Pod p, String key) {
        return p.getMetadata().getAnnotations() == null ? null : p.getMetadata().getAnnotations().get(key);
    }
}
