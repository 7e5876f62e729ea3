package dev.parley.operator.reconcile;

import dev.parley.operator.crd.AutoscalerStatus;
import dev.parley.operator.crd.DrainRecord;
import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.PodLoadSummary;
import dev.parley.operator.crd.PoolStatus;
import dev.parley.operator.model.Autoscaler;
import dev.parley.operator.model.AutoscalerMemory;
import dev.parley.operator.model.Capacity;
import dev.parley.operator.metrics.OperatorMetrics;
import dev.parley.operator.model.DrainModel;
import dev.parley.operator.model.DrainPhase;
import dev.parley.operator.model.DrainState;
import dev.parley.operator.model.PodLoad;
import dev.parley.operator.model.PoolKind;
import dev.parley.operator.model.PoolModel;
import dev.parley.operator.model.PoolPlan;
import dev.parley.operator.model.PoolPod;
import dev.parley.operator.model.ScaleDecision;
import dev.parley.operator.model.ScalingPolicy;
import dev.parley.operator.registry.DrainSignal;
import dev.parley.operator.registry.LoadSource;
import dev.parley.operator.registry.RegistryEditor;
import dev.parley.operator.registry.RegistryUnavailableException;
import io.fabric8.kubernetes.api.model.HasMetadata;
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
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Side effects for one media pool (an SfuPool, or a MediaRegion's TURN pool): reads pods and registry
 * load, asks the pure models what to do, and does it (create/delete pods, drain phases, registry writes,
 * events), then fills the pool's status. Shared by both pool kinds; they differ only in the
 * {@link PoolDefinition}, and each pool keeps its own autoscaler memory, so the two scale independently.
 */
public final class PoolReconcile {
    private static final Logger LOG = LoggerFactory.getLogger(PoolReconcile.class);
    private static final int RECENT_DRAINS = 10;

    /** Everything that distinguishes one pool from another. */
    public record PoolDefinition(PoolKind kind, HasMetadata owner, String poolName, String region, ScalingPolicy policy,
                                 Capacity capacity, int drainTimeoutSeconds, int migrationSeconds, PoolModel.Health health,
                                 Integer externalReplicas, Function<String, Pod> podBuilder) {
        String key() {
            return kind + "/" + owner.getMetadata().getNamespace() + "/" + poolName;
        }

        String namespace() {
            return owner.getMetadata().getNamespace();
        }
    }

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
    private final Map<String, long[]> availability = new ConcurrentHashMap<>();
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

    public void reconcile(PoolDefinition def, PoolStatus previous, PoolStatus out) {
        Instant now = clock.get();
        Long generation = def.owner().getMetadata().getGeneration();
        copyHistory(previous, out);

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

        List<Pod> pods = client.pods().inNamespace(def.namespace())
                .withLabels(PodFactory.poolSelector(def.kind().segment(), def.poolName())).list().getItems()
                .stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
        Map<String, Pod> byName = new LinkedHashMap<>();
        pods.forEach(p -> byName.put(p.getMetadata().getName(), p));

        List<PoolPod> model = new ArrayList<>();
        for (Pod p : pods) {
            PodLoad load = registered.get(p.getMetadata().getName());
            noteRegistration(p, load, now);
            model.add(toModel(p, load, now));
        }

        // Drains already running: advance them.
        Set<String> cleaned = new HashSet<>();
        for (PoolPod p : model) {
            if (p.draining()) {
                advanceDrain(def, byName.get(p.name()), p, out, now, cleaned);
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
        AutoscalerMemory mem = memory.computeIfAbsent(def.key(), k -> fromStatus(previous));
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
            replaceNow(def, byName.get(e.getKey()), e.getValue());
        }
        Set<String> startedDrains = new HashSet<>();
        for (var e : plan.startDrain().entrySet()) {
            Pod pod = byName.get(e.getKey());
            PoolPod mp = live.stream().filter(x -> x.name().equals(e.getKey())).findFirst().orElseThrow();
            startDrain(def, pod, mp.load(), e.getValue(), now);
            startedDrains.add(e.getKey());
            // Let it go through its immediate phases (1 -> 2 -> 3) in the same round.
            PoolPod started = toModel(refetch(pod), mp.load(), now);
            if (started.draining()) {
                advanceDrain(def, refetch(pod), started, out, now, cleaned);
            }
        }
        List<String> created = new ArrayList<>();
        for (int i = 0; i < plan.create(); i++) {
            String name = def.poolName() + "-" + PodFactory.suffix();
            client.pods().inNamespace(def.namespace()).resource(def.podBuilder().apply(name)).create();
            created.add(name);
        }
        if (!created.isEmpty()) {
            events.normal(def.owner(), "PodsCreated", def.kind() + " pods " + created + " created (target " + d.target() + ")");
        }

        fillStatus(def, out, d, registered, now, generation, cleaned, plan, created);
    }

    // ---- drain ----

    private void startDrain(PoolDefinition def, Pod pod, PodLoad load, String reason, Instant now) {
        boolean marked = false;
        try {
            marked = registry.markDraining(def.kind(), def.region(), pod.getMetadata().getName());
        } catch (RegistryUnavailableException e) {
            LOG.warn("could not mark {} DRAINING in etcd: {}", pod.getMetadata().getName(), e.getMessage());
        }
        String url = load != null && load.internalUrl() != null ? load.internalUrl() : podInternalUrl(pod);
        boolean signalled = drainSignal.signal(pod.getMetadata().getName(), url);
        editPod(def, pod.getMetadata().getName(), p -> {
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
    }

    private void advanceDrain(PoolDefinition def, Pod pod, PoolPod p, PoolStatus out, Instant now, Set<String> cleaned) {
        DrainState s = p.drain();
        for (int i = 0; i < DrainPhase.values().length; i++) {
            DrainModel.Step step = drainModel.next(s, p.load(), def.migrationSeconds(), now);
            if (!step.advances(s.phase())) {
                return;
            }
            DrainPhase next = step.next();
            String name = p.name();
            if (next == DrainPhase.CLEANUP) {
                cleanup(def, pod, s, step, p.load(), out, now);
                cleaned.add(name);
                return;
            }
            editPod(def, name, x -> {
                x.getMetadata().getAnnotations().put(ParleyApi.ANNOTATION_DRAIN_PHASE, next.annotation());
                x.getMetadata().getAnnotations().put(ParleyApi.ANNOTATION_DRAIN_PHASE_SINCE, now.toString());
                if (next == DrainPhase.UNROUTED) {
                    x.getMetadata().getLabels().put(ParleyApi.LABEL_SERVING, "false");
                }
            });
            if (next == DrainPhase.UNROUTED) {
                setReadinessGate(def, name, false, "Draining");
            }
            events.normal(pod, "DrainPhase" + next.number() + camel(next), step.reason());
            s = new DrainState(next, s.startedAt(), now, s.reason(), s.timeoutSeconds());
        }
    }

    private void cleanup(PoolDefinition def, Pod pod, DrainState s, DrainModel.Step step, PodLoad load, PoolStatus out,
                         Instant now) {
        String name = pod.getMetadata().getName();
        editPod(def, name, x -> {
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
        double seconds = Duration.between(s.startedAt(), now).toMillis() / 1000.0;
        DrainRecord r = new DrainRecord();
        r.pod = name;
        r.reason = s.reason();
        r.startedAt = s.startedAt().toString();
        r.finishedAt = now.toString();
        r.durationSeconds = seconds;
        r.outcome = step.outcome().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        r.remainingConnections = load == null ? 0L : load.connections();
        addDrainRecord(out, r);
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
                addDrainRecord(out, r);
                metrics.drainFinished(def.kind().name(), def.namespace(), def.poolName(), r.outcome);
                events.warning(def.owner(), "DrainInterrupted", s.name + " disappeared in drain phase " + s.drainPhase
                        + "; registry entry removed, owners reconnect its remaining participants");
            }
        }
    }

    private void replaceNow(PoolDefinition def, Pod pod, String reason) {
        String name = pod.getMetadata().getName();
        events.warning(def.owner(), "PodReplaced", name + " replaced: " + reason);
        try {
            registry.remove(def.kind(), def.region(), name);
        } catch (RegistryUnavailableException e) {
            LOG.warn("could not remove registry entry of {}: {}", name, e.getMessage());
        }
        client.pods().inNamespace(def.namespace()).withName(name).delete();
    }

    // ---- pod facts ----

    private void noteRegistration(Pod p, PodLoad load, Instant now) {
        Map<String, String> a = p.getMetadata().getAnnotations();
        boolean known = a != null && a.containsKey(ParleyApi.ANNOTATION_REGISTERED_AT);
        if (load != null && !known) {
            try {
                client.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName())
                        .edit(x -> {
                            x.getMetadata().getAnnotations().put(ParleyApi.ANNOTATION_REGISTERED_AT, now.toString());
                            return x;
                        });
                p.getMetadata().getAnnotations().put(ParleyApi.ANNOTATION_REGISTERED_AT, now.toString());
            } catch (KubernetesClientException e) {
                LOG.debug("could not annotate {}: {}", p.getMetadata().getName(), e.getMessage());
            }
        }
        boolean active = load != null && load.active() && !isDraining(p);
        setReadinessGate(p, active, load == null ? "NotRegistered" : active ? "RegistryActive" : "Draining");
    }

    private static boolean isDraining(Pod p) {
        Map<String, String> a = p.getMetadata().getAnnotations();
        return a != null && a.containsKey(ParleyApi.ANNOTATION_DRAIN_PHASE);
    }

    static PoolPod toModel(Pod p, PodLoad load, Instant now) {
        Map<String, String> a = p.getMetadata().getAnnotations() == null ? Map.of() : p.getMetadata().getAnnotations();
        Instant created = parse(p.getMetadata().getCreationTimestamp(), now);
        DrainState drain = null;
        DrainPhase phase = DrainPhase.fromAnnotation(a.get(ParleyApi.ANNOTATION_DRAIN_PHASE));
        if (phase != null) {
            Instant started = parse(a.get(ParleyApi.ANNOTATION_DRAIN_STARTED), now);
            drain = new DrainState(phase, started, parse(a.get(ParleyApi.ANNOTATION_DRAIN_PHASE_SINCE), started),
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
                    readyFalse = parse(c.getLastTransitionTime(), now);
                } else if (ParleyApi.READINESS_GATE.equals(c.getType()) && "True".equals(c.getStatus())) {
                    gateTrue = parse(c.getLastTransitionTime(), now);
                }
            }
        }
        Instant unreadySince = readyFalse == null || gateTrue == null ? null
                : readyFalse.isAfter(gateTrue) ? readyFalse : gateTrue;
        return new PoolPod(p.getMetadata().getName(), created, load, a.containsKey(ParleyApi.ANNOTATION_REGISTERED_AT),
                failed, unreadySince, drain, a.get(ParleyApi.ANNOTATION_DRAIN_REQUESTED));
    }

    /** Ties pod readiness to the registry: the readiness gate condition is True only while the pod is ACTIVE. */
    private void setReadinessGate(Pod p, boolean active, String reason) {
        String want = active ? "True" : "False";
        if (p.getStatus() != null && p.getStatus().getConditions() != null && p.getStatus().getConditions().stream()
                .anyMatch(c -> ParleyApi.READINESS_GATE.equals(c.getType()) && want.equals(c.getStatus()))) {
            return;
        }
        try {
            client.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName()).editStatus(x -> {
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
        } catch (KubernetesClientException e) {
            LOG.debug("could not set readiness gate on {}: {}", p.getMetadata().getName(), e.getMessage());
        }
    }

    private void setReadinessGate(PoolDefinition def, String name, boolean active, String reason) {
        Pod p = client.pods().inNamespace(def.namespace()).withName(name).get();
        if (p != null) {
            setReadinessGate(p, active, reason);
        }
    }

    /** Read-modify-write of a pod, retried when someone else (kubectl-parley, kubelet) changed it meanwhile. */
    private void editPod(PoolDefinition def, String name, java.util.function.Consumer<Pod> change) {
        for (int attempt = 1; ; attempt++) {
            try {
                client.pods().inNamespace(def.namespace()).withName(name).edit(p -> {
                    if (p.getMetadata().getAnnotations() == null) {
                        p.getMetadata().setAnnotations(new HashMap<>());
                    }
                    if (p.getMetadata().getLabels() == null) {
                        p.getMetadata().setLabels(new HashMap<>());
                    }
                    change.accept(p);
                    return p;
                });
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt >= 5) {
                    throw e;
                }
            }
        }
    }

    private Pod refetch(Pod p) {
        Pod fresh = client.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName()).get();
        return fresh == null ? p : fresh;
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

    // ---- status ----

    private void fillStatus(PoolDefinition def, PoolStatus out, ScaleDecision d, Map<String, PodLoad> registered,
                            Instant now, Long generation, Set<String> cleaned, PoolPlan plan, List<String> created) {
        List<Pod> pods = client.pods().inNamespace(def.namespace())
                .withLabels(PodFactory.poolSelector(def.kind().segment(), def.poolName())).list().getItems()
                .stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
        int serving = 0;
        int ready = 0;
        int draining = 0;
        out.pods = new ArrayList<>();
        for (Pod p : pods) {
            String name = p.getMetadata().getName();
            if (cleaned.contains(name) || plan.replaceNow().containsKey(name)) {
                continue;
            }
            PodLoad l = registered.get(name);
            PodLoadSummary s = new PodLoadSummary();
            s.name = name;
            s.state = l == null ? "UNREGISTERED" : l.state();
            Map<String, String> a = p.getMetadata().getAnnotations() == null ? Map.of() : p.getMetadata().getAnnotations();
            s.drainPhase = a.get(ParleyApi.ANNOTATION_DRAIN_PHASE);
            if (l != null) {
                s.load = Math.round(def.capacity().load(l) * 1000) / 1000.0;
                if (def.kind() == PoolKind.SFU) {
                    s.egressBps = l.egressBps();
                    s.pps = l.pps();
                    s.subscriptions = l.subscriptions();
                    s.transports = l.transports();
                } else {
                    s.allocations = l.allocations();
                    s.relayedBps = l.relayedBps();
                }
            }
            out.pods.add(s);
            if (s.drainPhase != null) {
                draining++;
            } else {
                serving++;
                if (l != null && l.active()) {
                    ready++;
                }
            }
        }
        out.setReplicas(serving);
        out.readyReplicas = ready;
        out.drainingReplicas = draining;
        out.desiredReplicas = d.target();
        out.averageLoad = Math.round(d.averageLoad() * 1000) / 1000.0;
        out.observedGeneration = generation;
        AutoscalerMemory m = d.memory();
        AutoscalerStatus as = out.autoscaler;
        as.highLoadSince = str(m.highSince());
        as.lowLoadSince = str(m.lowSince());
        as.lastScaleUpTime = str(m.lastUp());
        as.lastScaleDownTime = str(m.lastDown());

        long[] av = availability.computeIfAbsent(def.key(), k -> new long[2]);
        av[0]++;
        if (ready >= def.policy().min()) {
            av[1]++;
        }
        out.availability = Math.round(av[1] * 10000.0 / av[0]) / 10000.0;
        metrics.poolObserved(def.kind().name(), def.namespace(), def.poolName(), serving, draining, out.availability);

        Conditions.set(out.conditions, "Ready", ready >= def.policy().min(),
                ready >= def.policy().min() ? "MinimumAvailable" : "BelowMinimum",
                ready + " of " + d.target() + " pods registered and ACTIVE (min " + def.policy().min() + ")", generation);
        boolean degraded = ready < d.target() || !plan.replaceNow().isEmpty();
        Conditions.set(out.conditions, "Degraded", degraded,
                !plan.replaceNow().isEmpty() ? "PodsReplaced" : degraded ? "Starting" : "AllPodsServing",
                !plan.replaceNow().isEmpty() ? "replaced " + plan.replaceNow() : ready + "/" + d.target() + " serving"
                        + (created.isEmpty() ? "" : ", created " + created), generation);
        Conditions.set(out.conditions, "Draining", draining > 0, draining > 0 ? "DrainInProgress" : "NoDrain",
                draining + " pods draining", generation);
        Conditions.set(out.conditions, "ScalingActive", def.policy().mode() == dev.parley.operator.crd.AutoscalingMode.External
                        || !registered.isEmpty(),
                def.policy().mode() == dev.parley.operator.crd.AutoscalingMode.External ? "ExternalAutoscaler" : "Builtin",
                d.reason(), generation);
    }

    private static void copyHistory(PoolStatus previous, PoolStatus out) {
        if (previous == null) {
            return;
        }
        if (previous.conditions != null) {
            out.conditions = new ArrayList<>(previous.conditions);
        }
        if (previous.recentDrains != null) {
            out.recentDrains = new ArrayList<>(previous.recentDrains);
        }
        if (previous.autoscaler != null) {
            out.autoscaler.lastDecision = previous.autoscaler.lastDecision;
            out.autoscaler.lastDecisionReason = previous.autoscaler.lastDecisionReason;
            out.autoscaler.lastDecisionTime = previous.autoscaler.lastDecisionTime;
        }
    }

    private static AutoscalerMemory fromStatus(PoolStatus s) {
        if (s == null || s.autoscaler == null) {
            return AutoscalerMemory.EMPTY;
        }
        return new AutoscalerMemory(s.desiredReplicas, parse(s.autoscaler.highLoadSince, null),
                parse(s.autoscaler.lowLoadSince, null), parse(s.autoscaler.lastScaleUpTime, null),
                parse(s.autoscaler.lastScaleDownTime, null));
    }

    private static void addDrainRecord(PoolStatus out, DrainRecord r) {
        out.recentDrains.add(0, r);
        while (out.recentDrains.size() > RECENT_DRAINS) {
            out.recentDrains.remove(out.recentDrains.size() - 1);
        }
    }

    private static String connections(PodLoad l) {
        return l == null ? "unknown" : String.valueOf(l.connections());
    }

    private static String camel(DrainPhase p) {
        String n = p.name().toLowerCase(java.util.Locale.ROOT);
        return Character.toUpperCase(n.charAt(0)) + n.substring(1);
    }

    private static String str(Instant i) {
        return i == null ? null : i.toString();
    }

    static Instant parse(String s, Instant fallback) {
        if (s == null || s.isBlank()) {
            return fallback;
        }
        try {
            return Instant.parse(s);
        } catch (java.time.format.DateTimeParseException e) {
            return fallback;
        }
    }
}
