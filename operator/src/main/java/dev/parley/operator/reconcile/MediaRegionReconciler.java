package dev.parley.operator.reconcile;

import dev.parley.operator.crd.MediaRegion;
import dev.parley.operator.crd.MediaRegionStatus;
import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.PoolCount;
import dev.parley.operator.crd.SfuPool;
import dev.parley.operator.crd.SfuPoolStatus;
import dev.parley.operator.crd.TurnPoolStatus;
import dev.parley.operator.model.Capacity;
import dev.parley.operator.model.Conditions;
import dev.parley.operator.model.PodFactory;
import dev.parley.operator.model.PoolDefinition;
import dev.parley.operator.model.PoolKind;
import dev.parley.operator.model.PoolModel;
import dev.parley.operator.model.ScalingPolicy;
import dev.parley.operator.model.StableResources;
import io.fabric8.kubernetes.api.model.Service;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.Mappers;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * MediaRegion: the stable signaling and TURN Services and the TURN PDB (dependent resources), the region's TURN pool
 * (its own autoscaler on allocations and relayed bandwidth) and a roll-up of its SfuPools. Reconciles when the region,
 * one of its TURN pods, its Services/PDB or the roll-up numbers of a listed SfuPool change, and every {@code resync}
 * for the registry.
 */
@Workflow(dependents = {
        @Dependent(type = SignalingService.class, name = "signaling-service",
                useEventSourceWithName = MediaRegionReconciler.SERVICES),
        @Dependent(type = TurnService.class, name = "turn-service",
                useEventSourceWithName = MediaRegionReconciler.SERVICES),
        @Dependent(type = TurnPdb.class, name = "turn-pdb")})
@ControllerConfiguration(name = "mediaregion")
public class MediaRegionReconciler implements Reconciler<MediaRegion> {
    /** One Service informer for both Service dependents. */
    public static final String SERVICES = "region-services";

    private final PoolReconcile pools;
    private final PodFactory podFactory;
    private final Duration resync;
    private final LastStatus<MediaRegionStatus> lastStatus = new LastStatus<>();
    private PodCache<MediaRegion> pods;

    public MediaRegionReconciler(PoolReconcile pools, PodFactory podFactory, Duration resync) {
        this.pools = pools;
        this.podFactory = podFactory;
        this.resync = resync;
    }

    @Override
    public List<EventSource<?, MediaRegion>> prepareEventSources(EventSourceContext<MediaRegion> context) {
        pods = PodCache.forComponent(context, ParleyApi.COMPONENT_TURN);
        var services = new InformerEventSource<>(InformerEventSourceConfiguration.from(Service.class, MediaRegion.class)
                .withName(SERVICES)
                .withLabelSelector(ParleyApi.LABEL_MANAGED_BY + "=" + ParleyApi.MANAGED_BY)
                .withSecondaryToPrimaryMapper(Mappers.fromOwnerReferences(MediaRegion.class))
                .build(), context);
        // A region lists its SfuPools by name (no owner reference): map both ways through spec.sfuPools.
        var sfuPools = new InformerEventSource<>(InformerEventSourceConfiguration.from(SfuPool.class, MediaRegion.class)
                .withName("region-sfupools")
                .withSecondaryToPrimaryMapper((SfuPool p) -> context.getPrimaryCache()
                        .list(p.getMetadata().getNamespace(), mr -> mr.getSpec() != null
                                && mr.getSpec().sfuPools.contains(p.getMetadata().getName()))
                        .map(ResourceID::fromResource).collect(Collectors.toSet()))
                .withPrimaryToSecondaryMapper((MediaRegion mr) -> mr.getSpec().sfuPools.stream()
                        .map(n -> new ResourceID(n, mr.getMetadata().getNamespace())).collect(Collectors.toSet()))
                // A pool's status changes every round; only what the roll-up shows is worth a region reconcile.
                .withOnUpdateFilter((SfuPool now, SfuPool before) -> !rollUp(now).equals(rollUp(before)))
                .build(), context);
        return List.of(pods.eventSource(), services, sfuPools);
    }

    private static List<Object> rollUp(SfuPool p) {
        SfuPoolStatus s = p.getStatus();
        return s == null ? List.of() : java.util.Arrays.asList(s.replicas, s.readyReplicas, s.drainingReplicas,
                Conditions.isTrue(s.conditions, "Ready"));
    }

    @Override
    public UpdateControl<MediaRegion> reconcile(MediaRegion mr, Context<MediaRegion> context) {
        var spec = mr.getSpec();
        var turn = spec.turn;

        var a = turn.autoscaling;
        var def = new PoolDefinition(PoolKind.TURN, mr, PodFactory.turnPoolName(mr), spec.region,
                ScalingPolicy.of(turn.minReplicas, turn.maxReplicas, a), Capacity.Turn.of(a),
                turn.drain.timeoutSeconds, turn.drain.migrationSeconds,
                new PoolModel.Health(Duration.ofSeconds(120), Duration.ofSeconds(60)),
                null, podName -> podFactory.turnPod(mr, podName));

        MediaRegionStatus out = new MediaRegionStatus();
        MediaRegionStatus prev = lastStatus.previous(mr, mr.getStatus());
        if (prev != null && prev.conditions != null) {
            out.conditions.addAll(prev.conditions);
        }
        TurnPoolStatus turnStatus = new TurnPoolStatus();
        pools.reconcile(def, pods.of(mr), prev == null ? null : prev.turn, turnStatus);
        out.turn = turnStatus;
        out.turnReady = turnStatus.readyReplicas;
        out.signalingService = StableResources.signalingServiceName(mr);
        out.turnService = StableResources.turnServiceName(mr);

        Map<String, SfuPool> listed = new HashMap<>();
        Set<SfuPool> found = context.getSecondaryResources(SfuPool.class);
        found.forEach(p -> listed.put(p.getMetadata().getName(), p));
        int sfuReady = 0;
        boolean poolsReady = true;
        StringBuilder missing = new StringBuilder();
        for (String poolName : spec.sfuPools) {
            SfuPool p = listed.get(poolName);
            PoolCount c = new PoolCount();
            c.name = poolName;
            c.found = p != null;
            if (p != null && p.getStatus() != null) {
                c.replicas = p.getStatus().replicas;
                c.readyReplicas = p.getStatus().readyReplicas;
                c.drainingReplicas = p.getStatus().drainingReplicas;
                sfuReady += c.readyReplicas == null ? 0 : c.readyReplicas;
                poolsReady &= Conditions.isTrue(p.getStatus().conditions, "Ready");
            } else {
                poolsReady = false;
                missing.append(poolName).append(' ');
            }
            out.sfuPools.add(c);
        }
        out.sfuReady = sfuReady;
        out.observedGeneration = mr.getMetadata().getGeneration();
        boolean turnReady = Conditions.isTrue(turnStatus.conditions, "Ready");
        boolean ready = turnReady && poolsReady && !spec.sfuPools.isEmpty();
        Conditions.set(out.conditions, "Ready", ready, ready ? "RegionServing" : "NotServing",
                "TURN ready=" + turnReady + ", SFU pools ready=" + poolsReady
                        + (missing.isEmpty() ? "" : " (missing or not reconciled: " + missing.toString().trim() + ")"),
                out.observedGeneration);
        boolean degraded = !ready || Conditions.isTrue(turnStatus.conditions, "Degraded");
        Conditions.set(out.conditions, "Degraded", degraded, degraded ? "CapacityMissing" : "AllServing",
                "TURN " + turnStatus.readyReplicas + "/" + turnStatus.desiredReplicas + " ready, SFU ready pods " + sfuReady,
                out.observedGeneration);
        StatusWriter.write(context, mr, MediaRegion.class, out, MediaRegion::setStatus);
        lastStatus.computed(mr, out);
        // The TURN pool's load, registrations and drain progress live in etcd, which sends no Kubernetes events.
        return UpdateControl.<MediaRegion>noUpdate().rescheduleAfter(resync);
    }
}
