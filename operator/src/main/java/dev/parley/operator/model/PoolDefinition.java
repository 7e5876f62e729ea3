package dev.parley.operator.model;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.function.Function;

/** Everything that distinguishes one media pool (an SfuPool, or a MediaRegion's TURN pool) from another. */
public record PoolDefinition(PoolKind kind, HasMetadata owner, String poolName, String region, ScalingPolicy policy,
                             Capacity capacity, int drainTimeoutSeconds, int migrationSeconds, PoolModel.Health health,
                             Integer externalReplicas, Function<String, Pod> podBuilder) {
    /** Identifies the pool's in-memory state (autoscaler memory, availability). */
    public String key() {
        return kind + "/" + owner.getMetadata().getNamespace() + "/" + poolName;
    }

    public String namespace() {
        return owner.getMetadata().getNamespace();
    }
}
