package dev.parley.operator.reconcile;

import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.SfuPool;
import dev.parley.operator.crd.SfuPoolStatus;
import dev.parley.operator.model.Capacity;
import dev.parley.operator.model.PodFactory;
import dev.parley.operator.model.PoolDefinition;
import dev.parley.operator.model.PoolKind;
import dev.parley.operator.model.PoolModel;
import dev.parley.operator.model.ScalingPolicy;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * SfuPool: SFU pods, their PDB (a dependent resource), autoscaling on SFU stress, drains. Reconciles when the pool
 * or one of its pods changes (pod informer, owner reference → pool), and every {@code resync} for the registry.
 */
@Workflow(dependents = @Dependent(type = SfuPoolPdb.class, name = "sfu-pdb"))
@ControllerConfiguration(name = "sfupool")
public class SfuPoolReconciler implements Reconciler<SfuPool> {
    private final PoolReconcile pools;
    private final PodFactory podFactory;
    private final Duration resync;
    private final LastStatus<SfuPoolStatus> lastStatus = new LastStatus<>();
    private PodCache<SfuPool> pods;

    public SfuPoolReconciler(PoolReconcile pools, PodFactory podFactory, Duration resync) {
        this.pools = pools;
        this.podFactory = podFactory;
        this.resync = resync;
    }

    @Override
    public List<EventSource<?, SfuPool>> prepareEventSources(EventSourceContext<SfuPool> context) {
        pods = PodCache.forComponent(context, ParleyApi.COMPONENT_SFU);
        return List.of(pods.eventSource());
    }

    @Override
    public UpdateControl<SfuPool> reconcile(SfuPool pool, Context<SfuPool> context) {
        var spec = pool.getSpec();
        var a = spec.autoscaling;
        var def = new PoolDefinition(PoolKind.SFU, pool, pool.getMetadata().getName(), spec.region,
                ScalingPolicy.of(spec.minReplicas, spec.maxReplicas, a), Capacity.Sfu.of(a),
                spec.drain.timeoutSeconds, spec.drain.migrationSeconds,
                new PoolModel.Health(Duration.ofSeconds(spec.health.registrationGraceSeconds),
                        Duration.ofSeconds(spec.health.unreadyThresholdSeconds)),
                spec.replicas, name -> podFactory.sfuPod(pool, name));

        SfuPoolStatus out = new SfuPoolStatus();
        pools.reconcile(def, pods.of(pool), lastStatus.previous(pool, pool.getStatus()), out);
        out.selector = PodFactory.poolSelector(ParleyApi.COMPONENT_SFU, pool.getMetadata().getName()).entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
        StatusWriter.write(context, pool, SfuPool.class, out, SfuPool::setStatus);
        lastStatus.computed(pool, out);
        // Load, registration and drain progress live in etcd, which sends no Kubernetes events: poll it.
        return UpdateControl.<SfuPool>noUpdate().rescheduleAfter(resync);
    }
}
