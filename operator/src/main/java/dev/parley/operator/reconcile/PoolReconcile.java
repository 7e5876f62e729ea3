package dev.parley.operator.reconcile;

import dev.parley.operator.crd.DrainRecord;
import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.PodLoadSummary;
import dev.parley.operator.crd.PoolStatus;
import dev.parley.operator.model.Autoscaler;
import dev.parley.operator.model.AutoscalerMemory;
import dev.parley.operator.model.Conditions;
import dev.parley.operator.metrics.OperatorMetrics;
import dev.parley.operator.model.DrainModel;
import dev.parley.operator.model.DrainPhase;
import dev.parley.operator.model.DrainState;
import dev.parley.operator.model.PodLoad;
import dev.parley.operator.model.Instants;
import dev.parley.operator.model.PodFactory;
import dev.parley.operator.model.PoolDefinition;
import dev.parley.operator.model.PoolModel;
import dev.parley.operator.model.PoolPlan;
import dev.parley.operator.model.PoolPod;
import dev.parley.operator.model.PoolStatusMapper;
import dev.parley.operator.model.ScaleDecision;
import dev.parley.operator.registry.DrainSignal;
import dev.parley.operator.registry.LoadSource;
import dev.parley.operator.registry.RegistryEditor;
import dev.parley.operator.registry.RegistryUnavailableException;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Side effects for one media pool (an SfuPool, or a MediaRegion's TURN pool): reads the pool's pods from the
 * informer cache and registry load from etcd, asks the pure models what to do, and does it (create/delete pods,
 * drain phases, registry writes, events); {@link PoolStatusMapper} then fills the pool's status. Shared by both
 * pool kinds; they differ only in the {@link PoolDefinition}, and each pool keeps its own autoscaler memory, so the
 * two scale independently. Pods stay imperative (not a JOSDK dependent resource): which pod goes, and when, is the
 * drain state machine's decision, not a desired-state diff.
 */
public final class PoolReconcile {
    private static final Logger LOG = LoggerFactory.getLogger(PoolReconcile.class);

    private final KubernetesClient client;
    private final LoadSource loads;
    private final RegistryEditor registry;
    private final DrainSignal drainSignal;
    private final EventRecorder events;
    private final Supplier<Instant> clock;
    private final Autoscaler autoscaler = new Autoscaler();
    private final PoolModel poolModel = new PoolModel();
    private final DrainModel drainModel = new DrainModel();
    private final Map<String, AutoscalerMemory> memory = new ConcurrentHashMap<>();
    private final PoolStatusMapper statusMapper = new PoolStatusMapper();
    private final OperatorMetrics metrics;

    public PoolReconcile(KubernetesClient client, LoadSource loads, RegistryEditor registry, DrainSignal drainSignal,
                         EventRecorder events, Supplier<Instant> clock, OperatorMetrics metrics) {
        this.metrics = metrics;
        this.client = client;
        this.loads = loads;
        this.registry = registry;
        this.drainSignal = drainSignal;
        this.events = events;
        this.clock = clock;
    }

    /**
     * One round for one pool.
     *
     * @param pods the pool's pods from the informer cache (the round's own writes are fed back into it)
     */
    public void reconcile(PoolDefinition def, OwnedPods pods, PoolStatus previous, PoolStatus out) {
        Instant now = clock.get();
        Long generation = def.owner().getMetadata().getGeneration();
        PoolStatusMapper.copyHistory(previous, out);

        // Pods first, then the registry: the load read is never older than the pods it is matched with. (A drain
        // requested after a pod registered must not meet a registry view from before the registration: it would take
        // the pod for one that never registered and remove it at once.)
        String component = def.kind().segment();
        List<Pod> current = pods.list().stream().filter(p -> inPool(p, component, def.poolName())).toList();
        Map<String, PodLoad> registered;
        try {
            registered = loads.loads(def.kind(), def.region());
        } catch (RegistryUnavailableException e) {
            // Without load data no pod may be judged dead or drained: keep everything as it is.
            LOG.warn("registry unavailable for {}: {}", def.key(), e.getMessage());
            metrics.registryUnavailable(def.kind().name(), def.namespace(), def.poolName());
            Conditions.set(out.conditions, "RegistryAvailable", false, "EtcdUnavailable", e.getMessage(), generation);
            return;
        }
        Conditions.set(out.conditions, "RegistryAvailable", true, "EtcdReachable", "registry readable", generation);

        Map<String, Pod> byName = new LinkedHashMap<>();
        current.forEach(p -> byName.put(p.getMetadata().getName(), p));

        List<PoolPod> model = new ArrayList<>();
        for (Pod p : current) {
            PodLoad load = registered.get(p.getMetadata().getName());
            noteRegistration(pods, p, load, now);
            model.add(toModel(p, load, now));
        }

        // Drains already running: advance them.
        Set<String> cleaned = new HashSet<>();
        for (PoolPod p : model) {
            if (p.draining()) {
                advanceDrain(def, pods, byName.get(p.name()), p, out, now, cleaned);
            }
        }
        reportPodsGoneMidDrain(def, previous, byName.keySet(), cleaned, out, now);

        // Autoscaling decision (pure) on registered ACTIVE serving pods.
        List<Double> activeLoads = new ArrayList<>();
        int serving = 0;
        for (PoolPod p : model) {
            if (!p.draining()) {
                serving++;
                if (p.load() != null && p.load().active()) {
                    activeLoads.add(def.capacity().load(p.load()));
                }
            }
        }
        AutoscalerMemory mem = memory.computeIfAbsent(def.key(), k -> PoolStatusMapper.memoryFrom(previous));
        ScaleDecision d = autoscaler.decide(def.policy(), activeLoads, serving, def.externalReplicas(), mem, now);
        memory.put(def.key(), d.memory());
        if (d.changed()) {
            String reason = d.direction() == ScaleDecision.Direction.UP ? "ScalingUp" : "ScalingDown";
            metrics.scaleDecision(def.kind().name(), def.namespace(), def.poolName(), d.direction().name());
            events.normal(def.owner(), reason, String.format("%s %s: %d -> %d pods: %s", def.kind(), def.poolName(),
                    d.previousTarget(), d.target(), d.reason()));
            out.autoscaler.lastDecision = d.direction() + " " + d.previousTarget() + "->" + d.target();
            out.autoscaler.lastDecisionReason = d.reason();
            out.autoscaler.lastDecisionTime = now.toString();
        }

        // Pool plan (pure): broken pods, drains, new pods.
        List<PoolPod> live = model.stream().filter(p -> !cleaned.contains(p.name())).toList();
        PoolPlan plan = poolModel.plan(live, d.target(), def.capacity(), def.health(), now);
        for (var e : plan.replaceNow().entrySet()) {
            replaceNow(def, pods, byName.get(e.getKey()), e.getValue());
        }
        for (var e : plan.startDrain().entrySet()) {
            Pod pod = byName.get(e.getKey());
            PoolPod mp = live.stream().filter(x -> x.name().equals(e.getKey())).findFirst().orElseThrow();
            Pod started = startDrain(def, pods, pod, mp.load(), e.getValue(), now);
            // Let it go through its immediate phases (1 -> 2 -> 3) in the same round.
            PoolPod startedModel = toModel(started, mp.load(), now);
            if (startedModel.draining()) {
                advanceDrain(def, pods, started, startedModel, out, now, cleaned);
            }
        }
        List<String> created = new ArrayList<>();
        Map<String, Pod> seen = new LinkedHashMap<>(byName);
        for (int i = 0; i < plan.create(); i++) {
            String name = def.poolName() + "-" + PodFactory.suffix();
            Pod pod = client.pods().inNamespace(def.namespace()).resource(def.podBuilder().apply(name)).create();
            pods.created(pod);
            seen.put(name, pod);
            created.add(name);
        }
        if (!created.isEmpty()) {
            events.normal(def.owner(), "PodsCreated", def.kind() + " pods " + created + " created (target " + d.target() + ")");
        }

        // Status: the pods this round saw or created, as they are now. A pod that vanished meanwhile by someone else's
        // hand stays listed this once, so the next round, which no longer finds it, reports it (DrainInterrupted).
        List<Pod> after = seen.keySet().stream().sorted().map(n -> pods.get(n).orElse(seen.get(n))).toList();
        statusMapper.fill(def, out, after, registered, new PoolStatusMapper.Round(d, plan, cleaned, created), generation);
        metrics.poolObserved(def.kind().name(), def.namespace(), def.poolName(), out.getReplicas(), out.drainingReplicas,
                out.availability);
    }

    private static boolean inPool(Pod p, String component, String pool) {
        Map<String, String> l = p.getMetadata().getLabels();
        return l != null && component.equals(l.get(ParleyApi.LABEL_COMPONENT)) && pool.equals(l.get(ParleyApi.LABEL_POOL));
    }

    // ---- drain ----

    private Pod startDrain(PoolDefinition def, OwnedPods pods, Pod pod, PodLoad load, String reason, Instant now) {
        boolean marked = false;
        try {
            marked = registry.markDraining(def.kind(), def.region(), pod.getMetadata().getName());
        } catch (RegistryUnavailableException e) {
            LOG.warn("could not mark {} DRAINING in etcd: {}", pod.getMetadata().getName(), e.getMessage());
        }
        String url = load != null && load.internalUrl() != null ? load.internalUrl() : podInternalUrl(pod);
        boolean signalled = drainSignal.signal(pod.getMetadata().getName(), url);
        Pod started = editPod(def, pods, pod.getMetadata().getName(), p -> {
            Map<String, String> a = p.getMetadata().getAnnotations();
            a.remove(ParleyApi.ANNOTATION_DRAIN_REQUESTED);
            a.put(ParleyApi.ANNOTATION_DRAIN_PHASE, DrainPhase.DRAINING.annotation());
            a.put(ParleyApi.ANNOTATION_DRAIN_STARTED, now.toString());
            a.put(ParleyApi.ANNOTATION_DRAIN_PHASE_SINCE, now.toString());
            a.put(ParleyApi.ANNOTATION_DRAIN_REASON, reason);
            // kubectl-parley drain --timeout may have set a budget for this one drain; otherwise the pool's.
            a.putIfAbsent(ParleyApi.ANNOTATION_DRAIN_TIMEOUT, String.valueOf(def.drainTimeoutSeconds()));
        });
        events.normal(pod, "DrainPhase1Draining", "drain started (" + reason + "): DRAINING in etcd="
                + marked + ", pod signalled=" + signalled + ", " + connections(load) + " connections");
        events.normal(def.owner(), "DrainStarted", pod.getMetadata().getName() + " (" + reason + ", load "
                + (load == null ? "unregistered" : String.format("%.2f", def.capacity().load(load))) + ")");
        return started;
    }

    private void advanceDrain(PoolDefinition def, OwnedPods pods, Pod pod, PoolPod p, PoolStatus out, Instant now,
                              Set<String> cleaned) {
        DrainState s = p.drain();
        for (int i = 0; i < DrainPhase.values().length; i++) {
            DrainModel.Step step = drainModel.next(s, p.load(), def.migrationSeconds(), now);
            if (!step.advances(s.phase())) {
                return;
            }
            DrainPhase next = step.next();
            String name = p.name();
            if (next == DrainPhase.CLEANUP) {
                cleanup(def, pods, pod, s, step, p.load(), out, now);
                cleaned.add(name);
                return;
            }
            Pod moved = editPod(def, pods, name, x -> {
                x.getMetadata().getAnnotations().put(ParleyApi.ANNOTATION_DRAIN_PHASE, next.annotation());
                x.getMetadata().getAnnotations().put(ParleyApi.ANNOTATION_DRAIN_PHASE_SINCE, now.toString());
                if (next == DrainPhase.UNROUTED) {
                    x.getMetadata().getLabels().put(ParleyApi.LABEL_SERVING, "false");
                }
            });
            if (next == DrainPhase.UNROUTED) {
                setReadinessGate(pods, moved, false, "Draining");
            }
            events.normal(pod, "DrainPhase" + next.number() + camel(next), step.reason());
            s = new DrainState(next, s.startedAt(), now, s.reason(), s.timeoutSeconds());
        }
    }

    private void cleanup(PoolDefinition def, OwnedPods pods, Pod pod, DrainState s, DrainModel.Step step, PodLoad load,
                         PoolStatus out, Instant now) {
        String name = pod.getMetadata().getName();
        editPod(def, pods, name, x -> {
            x.getMetadata().getAnnotations().put(ParleyApi.ANNOTATION_DRAIN_PHASE, DrainPhase.CLEANUP.annotation());
            x.getMetadata().getAnnotations().put(ParleyApi.ANNOTATION_DRAIN_PHASE_SINCE, now.toString());
        });
        events.normal(pod, "DrainPhase5Cleanup", step.reason());
        // Unlist first: no owner may pick a pod that is already being deleted.
        try {
            registry.remove(def.kind(), def.region(), name);
        } catch (RegistryUnavailableException e) {
            LOG.warn("could not remove registry entry of {} (its lease will expire it): {}", name, e.getMessage());
        }
        client.pods().inNamespace(def.namespace()).withName(name).delete();
        pods.deleted(name);
        double seconds = Duration.between(s.startedAt(), now).toMillis() / 1000.0;
        DrainRecord r = new DrainRecord();
        r.pod = name;
        r.reason = s.reason();
        r.startedAt = s.startedAt().toString();
        r.finishedAt = now.toString();
        r.durationSeconds = seconds;
        r.outcome = step.outcome().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        r.remainingConnections = load == null ? 0L : load.connections();
        PoolStatusMapper.addDrainRecord(out, r);
        metrics.drainFinished(def.kind().name(), def.namespace(), def.poolName(), r.outcome);
        String msg = String.format("%s drained in %.1fs (%s, %d connections left)", name, seconds, r.outcome,
                r.remainingConnections);
        if (step.outcome() == DrainModel.Outcome.TIMEOUT) {
            events.warning(def.owner(), "DrainTimedOut", msg);
        } else {
            events.normal(def.owner(), "Drained", msg);
        }
    }

    private void reportPodsGoneMidDrain(PoolDefinition def, PoolStatus previous, Set<String> present, Set<String> cleaned,
                                        PoolStatus out, Instant now) {
        if (previous == null || previous.pods == null) {
            return;
        }
        for (PodLoadSummary s : previous.pods) {
            if (s.drainPhase != null && !present.contains(s.name) && !cleaned.contains(s.name)
                    && out.recentDrains.stream().noneMatch(r -> s.name.equals(r.pod))) {
                try {
                    registry.remove(def.kind(), def.region(), s.name);
                } catch (RegistryUnavailableException e) {
                    LOG.warn("could not remove registry entry of vanished {}: {}", s.name, e.getMessage());
                }
                DrainRecord r = new DrainRecord();
                r.pod = s.name;
                r.reason = "interrupted";
                r.finishedAt = now.toString();
                r.outcome = "pod-gone";
                r.remainingConnections = s.transports != null ? s.transports : s.allocations;
                PoolStatusMapper.addDrainRecord(out, r);
                metrics.drainFinished(def.kind().name(), def.namespace(), def.poolName(), r.outcome);
                events.warning(def.owner(), "DrainInterrupted", s.name + " disappeared in drain phase " + s.drainPhase
                        + "; registry entry removed, owners reconnect its remaining participants");
            }
        }
    }

    private void replaceNow(PoolDefinition def, OwnedPods pods, Pod pod, String reason) {
        String name = pod.getMetadata().getName();
        events.warning(def.owner(), "PodReplaced", name + " replaced: " + reason);
        try {
            registry.remove(def.kind(), def.region(), name);
        } catch (RegistryUnavailableException e) {
            LOG.warn("could not remove registry entry of {}: {}", name, e.getMessage());
        }
        client.pods().inNamespace(def.namespace()).withName(name).delete();
        pods.deleted(name);
    }

    // ---- pod facts ----

    /**
     * Records the first sight of the pod's registry entry and ties its readiness gate to it. The round keeps deciding
     * on its snapshot {@code p} (only the registered-at mark is copied into it): the pod the API server returns may
     * already carry a newer drain request than the registry view of this round, which must not meet.
     */
    private void noteRegistration(OwnedPods pods, Pod p, PodLoad load, Instant now) {
        Map<String, String> a = p.getMetadata().getAnnotations();
        boolean known = a != null && a.containsKey(ParleyApi.ANNOTATION_REGISTERED_AT);
        if (load != null && !known) {
            try {
                pods.updated(client.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName())
                        .edit(x -> {
                            if (x.getMetadata().getAnnotations() == null) {
                                x.getMetadata().setAnnotations(new HashMap<>());
                            }
                            x.getMetadata().getAnnotations().put(ParleyApi.ANNOTATION_REGISTERED_AT, now.toString());
                            return x;
                        }));
                if (p.getMetadata().getAnnotations() == null) {
                    p.getMetadata().setAnnotations(new HashMap<>());
                }
                p.getMetadata().getAnnotations().put(ParleyApi.ANNOTATION_REGISTERED_AT, now.toString());
            } catch (KubernetesClientException e) {
                LOG.debug("could not annotate {}: {}", p.getMetadata().getName(), e.getMessage());
            }
        }
        boolean active = load != null && load.active() && !isDraining(p);
        setReadinessGate(pods, p, active, load == null ? "NotRegistered" : active ? "RegistryActive" : "Draining");
    }

    private static boolean isDraining(Pod p) {
        Map<String, String> a = p.getMetadata().getAnnotations();
        return a != null && a.containsKey(ParleyApi.ANNOTATION_DRAIN_PHASE);
    }

    static PoolPod toModel(Pod p, PodLoad load, Instant now) {
        Map<String, String> a = p.getMetadata().getAnnotations() == null ? Map.of() : p.getMetadata().getAnnotations();
        Instant created = Instants.parse(p.getMetadata().getCreationTimestamp(), now);
        DrainState drain = null;
        DrainPhase phase = DrainPhase.fromAnnotation(a.get(ParleyApi.ANNOTATION_DRAIN_PHASE));
        if (phase != null) {
            Instant started = Instants.parse(a.get(ParleyApi.ANNOTATION_DRAIN_STARTED), now);
            drain = new DrainState(phase, started, Instants.parse(a.get(ParleyApi.ANNOTATION_DRAIN_PHASE_SINCE), started),
                    a.getOrDefault(ParleyApi.ANNOTATION_DRAIN_REASON, "unknown"),
                    Integer.parseInt(a.getOrDefault(ParleyApi.ANNOTATION_DRAIN_TIMEOUT, "600")));
        }
        String podPhase = p.getStatus() == null ? null : p.getStatus().getPhase();
        boolean failed = "Failed".equals(podPhase) || "Succeeded".equals(podPhase);
        // Unready counts only while the registry says ACTIVE (our gate is True): a pod that is still starting or
        // draining is unready by design. The clock starts at the later of the two transitions.
        Instant readyFalse = null;
        Instant gateTrue = null;
        if (p.getStatus() != null && p.getStatus().getConditions() != null) {
            for (PodCondition c : p.getStatus().getConditions()) {
                if ("Ready".equals(c.getType()) && "False".equals(c.getStatus())) {
                    readyFalse = Instants.parse(c.getLastTransitionTime(), now);
                } else if (ParleyApi.READINESS_GATE.equals(c.getType()) && "True".equals(c.getStatus())) {
                    gateTrue = Instants.parse(c.getLastTransitionTime(), now);
                }
            }
        }
        Instant unreadySince = readyFalse == null || gateTrue == null ? null
                : readyFalse.isAfter(gateTrue) ? readyFalse : gateTrue;
        return new PoolPod(p.getMetadata().getName(), created, load, a.containsKey(ParleyApi.ANNOTATION_REGISTERED_AT),
                failed, unreadySince, drain, a.get(ParleyApi.ANNOTATION_DRAIN_REQUESTED));
    }

    /**
     * Ties pod readiness to the registry: the readiness gate condition is True only while the pod is ACTIVE.
     * Returns the pod as it is after the change (or unchanged).
     */
    private Pod setReadinessGate(OwnedPods pods, Pod p, boolean active, String reason) {
        String want = active ? "True" : "False";
        if (p.getStatus() != null && p.getStatus().getConditions() != null && p.getStatus().getConditions().stream()
                .anyMatch(c -> ParleyApi.READINESS_GATE.equals(c.getType()) && want.equals(c.getStatus()))) {
            return p;
        }
        try {
            Pod updated = client.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName()).editStatus(x -> {
                if (x.getStatus() == null) {
                    x.setStatus(new io.fabric8.kubernetes.api.model.PodStatus());
                }
                List<PodCondition> cs = new ArrayList<>(x.getStatus().getConditions() == null ? List.of() : x.getStatus().getConditions());
                cs.removeIf(c -> ParleyApi.READINESS_GATE.equals(c.getType()));
                cs.add(new PodConditionBuilder().withType(ParleyApi.READINESS_GATE).withStatus(want).withReason(reason)
                        .withLastTransitionTime(Instant.now().toString()).build());
                x.getStatus().setConditions(cs);
                return x;
            });
            pods.updated(updated);
            return updated;
        } catch (KubernetesClientException e) {
            LOG.debug("could not set readiness gate on {}: {}", p.getMetadata().getName(), e.getMessage());
            return p;
        }
    }

    /**
     * Read-modify-write of a pod (a live read: the change must apply to the pod as it is, not as the cache last saw
     * it), retried when someone else (kubectl-parley, kubelet) changed it meanwhile. The result goes into the cache.
     */
    private Pod editPod(PoolDefinition def, OwnedPods pods, String name, java.util.function.Consumer<Pod> change) {
        for (int attempt = 1; ; attempt++) {
            try {
                Pod updated = client.pods().inNamespace(def.namespace()).withName(name).edit(p -> {
                    if (p.getMetadata().getAnnotations() == null) {
                        p.getMetadata().setAnnotations(new HashMap<>());
                    }
                    if (p.getMetadata().getLabels() == null) {
                        p.getMetadata().setLabels(new HashMap<>());
                    }
                    change.accept(p);
                    return p;
                });
                pods.updated(updated);
                return updated;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt >= 5) {
                    throw e;
                }
            }
        }
    }

    private static String podInternalUrl(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getPodIP() == null) {
            return null;
        }
        for (var c : pod.getSpec().getContainers()) {
            for (var port : c.getPorts()) {
                if ("internal".equals(port.getName())) {
                    return "http://" + pod.getStatus().getPodIP() + ":" + port.getContainerPort();
                }
            }
        }
        return null;
    }

    private static String connections(PodLoad l) {
        return l == null ? "unknown" : String.valueOf(l.connections());
    }

    private static String camel(DrainPhase p) {
        String n = p.name().toLowerCase(java.util.Locale.ROOT);
        return Character.toUpperCase(n.charAt(0)) + n.substring(1);
    }
}
