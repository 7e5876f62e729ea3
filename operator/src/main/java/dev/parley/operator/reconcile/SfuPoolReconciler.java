package dev.parley.operator.reconcile;

import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.SfuPool;
import dev.parley.operator.crd.SfuPoolStatus;
import dev.parley.operator.model.Capacity;
import dev.parley.operator.model.PoolKind;
import dev.parley.operator.model.PoolModel;
import dev.parley.operator.model.ScalingPolicy;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/** SfuPool: SFU pods, their PDB, autoscaling on SFU stress, drains. Requeues itself to follow registry load. */
@ControllerConfiguration(name = "sfupool")
public class SfuPoolReconciler implements Reconciler<SfuPool> {
    private final PoolReconcile pools;
    private final PodFactory podFactory;
    private final OwnedResources owned;
    private final Duration resync;

    public SfuPoolReconciler(PoolReconcile pools, PodFactory podFactory, OwnedResources owned, Duration resync) {
        this.pools = pools;
        this.podFactory = podFactory;
        this.owned = owned;
        this.resync = resync;
    }

    @Override
    public UpdateControl<SfuPool> reconcile(SfuPool pool, Context<SfuPool> context) {
        var spec = pool.getSpec();
        var a = spec.autoscaling;
        var def = new PoolReconcile.PoolDefinition(PoolKind.SFU, pool, pool.getMetadata().getName(), spec.region,
                ScalingPolicy.of(spec.minReplicas, spec.maxReplicas, a), Capacity.Sfu.of(a),
                spec.drain.timeoutSeconds, spec.drain.migrationSeconds,
                new PoolModel.Health(Duration.ofSeconds(spec.health.registrationGraceSeconds),
                        Duration.ofSeconds(spec.health.unreadyThresholdSeconds)),
                spec.replicas, name -> podFactory.sfuPod(pool, name));
        Map<String, String> selector = PodFactory.poolSelector(ParleyApi.COMPONENT_SFU, pool.getMetadata().getName());
        Map<String, String> serving = new LinkedHashMap<>(selector);
        serving.put(ParleyApi.LABEL_SERVING, "true");
        owned.ensurePdb(pool, pool.getMetadata().getName() + "-sfu", serving);

        SfuPoolStatus out = new SfuPoolStatus();
        pools.reconcile(def, pool.getStatus(), out);
        out.selector = selector.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
        pool.setStatus(out);
        return UpdateControl.patchStatus(pool).rescheduleAfter(resync);
    }
}
