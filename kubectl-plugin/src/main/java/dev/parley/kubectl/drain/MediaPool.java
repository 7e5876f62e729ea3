package dev.parley.kubectl.drain;

import dev.parley.operator.crd.DrainSpec;
import dev.parley.operator.crd.MediaRegion;
import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.PodLoadSummary;
import dev.parley.operator.crd.PoolStatus;
import dev.parley.operator.crd.SfuPool;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The pool a media pod belongs to (an SfuPool, or a MediaRegion's TURN pool named {@code <region>-turn}), with the
 * drain settings and the status the operator last wrote. Found by the pod's {@code parley.dev/pool} label, else by
 * the pod's name in a pool's {@code status.pods}.
 */
public record MediaPool(String kind, String namespace, String name, String region, Integer minReplicas, DrainSpec drain,
                        PoolStatus status) {

    public Optional<PodLoadSummary> summary(String pod) {
        return status == null ? Optional.empty() : status.pods.stream().filter(p -> pod.equals(p.name)).findFirst();
    }

    public static Optional<MediaPool> of(KubernetesClient c, Pod pod) {
        String ns = pod.getMetadata().getNamespace();
        Map<String, String> labels = pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
        String poolLabel = labels.get(ParleyApi.LABEL_POOL);
        List<MediaPool> all = all(c, ns, ParleyApi.COMPONENT_TURN.equals(labels.get(ParleyApi.LABEL_COMPONENT)) ? "TURN" : "SFU");
        if (poolLabel != null) {
            Optional<MediaPool> byLabel = all.stream().filter(p -> p.name().equals(poolLabel)).findFirst();
            if (byLabel.isPresent()) {
                return byLabel;
            }
        }
        String name = pod.getMetadata().getName();
        return all.stream().filter(p -> p.summary(name).isPresent()).findFirst();
    }

    private static List<MediaPool> all(KubernetesClient c, String ns, String kind) {
        if (kind.equals("TURN")) {
            return c.resources(MediaRegion.class).inNamespace(ns).list().getItems().stream()
                    .map(r -> new MediaPool("TURN", ns, r.getMetadata().getName() + "-turn", r.getSpec().region,
                            r.getSpec().turn == null ? null : r.getSpec().turn.minReplicas,
                            r.getSpec().turn == null ? null : r.getSpec().turn.drain,
                            r.getStatus() == null ? null : r.getStatus().turn))
                    .toList();
        }
        return c.resources(SfuPool.class).inNamespace(ns).list().getItems().stream()
                .map(p -> new MediaPool("SFU", ns, p.getMetadata().getName(), p.getSpec().region, p.getSpec().minReplicas,
                        p.getSpec().drain, p.getStatus()))
                .toList();
    }
}
