package dev.parley.operator.reconcile;

import dev.parley.operator.crd.MediaRegion;
import dev.parley.operator.crd.MediaRegionStatus;
import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.PoolCount;
import dev.parley.operator.crd.SfuPool;
import dev.parley.operator.crd.TurnPoolStatus;
import dev.parley.operator.model.Capacity;
import dev.parley.operator.model.PoolKind;
import dev.parley.operator.model.PoolModel;
import dev.parley.operator.model.ScalingPolicy;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * MediaRegion: the stable signaling and TURN Services (their names and hostnames never change while pods
 * come and go), the region's TURN pool (its own autoscaler on allocations and relayed bandwidth) and a
 * roll-up of its SfuPools.
 */
@ControllerConfiguration(name = "mediaregion")
public class MediaRegionReconciler implements Reconciler<MediaRegion> {
    private final KubernetesClient client;
    private final PoolReconcile pools;
    private final PodFactory podFactory;
    private final OwnedResources owned;
    private final Duration resync;

    public MediaRegionReconciler(KubernetesClient client, PoolReconcile pools, PodFactory podFactory, OwnedResources owned,
                                 Duration resync) {
        this.client = client;
        this.pools = pools;
        this.podFactory = podFactory;
        this.owned = owned;
        this.resync = resync;
    }

    @Override
    public UpdateControl<MediaRegion> reconcile(MediaRegion mr, Context<MediaRegion> context) {
        var spec = mr.getSpec();
        var turn = spec.turn;
        String name = mr.getMetadata().getName();
        String ns = mr.getMetadata().getNamespace();

        String signaling = name + "-signaling";
        owned.ensureService(mr, signaling, "ClusterIP", Map.of("app.kubernetes.io/name", spec.controllerSelector),
                List.of(port("http", 80, 8080, "TCP")), hostAnnotation(spec.signalingHost));

        String turnPool = PodFactory.turnPoolName(mr);
        Map<String, String> turnServing = new LinkedHashMap<>(PodFactory.poolSelector(ParleyApi.COMPONENT_TURN, turnPool));
        turnServing.put(ParleyApi.LABEL_SERVING, "true");
        String turnService = name + "-turn";
        owned.ensureService(mr, turnService, spec.turnHost == null ? "ClusterIP" : "LoadBalancer", turnServing,
                List.of(port("turn-udp", turn.port, turn.port, "UDP"), port("turn-tcp", turn.port, turn.port, "TCP")),
                hostAnnotation(spec.turnHost));
        owned.ensurePdb(mr, turnPool, turnServing);

        var a = turn.autoscaling;
        var def = new PoolReconcile.PoolDefinition(PoolKind.TURN, mr, turnPool, spec.region,
                ScalingPolicy.of(turn.minReplicas, turn.maxReplicas, a), Capacity.Turn.of(a),
                turn.drain.timeoutSeconds, turn.drain.migrationSeconds,
                new PoolModel.Health(Duration.ofSeconds(120), Duration.ofSeconds(60)),
                null, podName -> podFactory.turnPod(mr, podName));

        MediaRegionStatus out = new MediaRegionStatus();
        MediaRegionStatus prev = mr.getStatus();
        if (prev != null && prev.conditions != null) {
            out.conditions.addAll(prev.conditions);
        }
        TurnPoolStatus turnStatus = new TurnPoolStatus();
        pools.reconcile(def, prev == null ? null : prev.turn, turnStatus);
        out.turn = turnStatus;
        out.turnReady = turnStatus.readyReplicas;
        out.signalingService = signaling;
        out.turnService = turnService;

        int sfuReady = 0;
        boolean poolsReady = true;
        StringBuilder missing = new StringBuilder();
        for (String poolName : spec.sfuPools) {
            SfuPool p = client.resources(SfuPool.class).inNamespace(ns).withName(poolName).get();
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
        mr.setStatus(out);
        return UpdateControl.patchStatus(mr).rescheduleAfter(resync);
    }

    private static ServicePort port(String name, int port, int target, String protocol) {
        return new ServicePortBuilder().withName(name).withPort(port).withTargetPort(new IntOrString(target))
                .withProtocol(protocol).build();
    }

    private static Map<String, String> hostAnnotation(String host) {
        return host == null ? Map.of() : Map.of("external-dns.alpha.kubernetes.io/hostname", host);
    }
}
