package dev.parley.operator.model;

import dev.parley.operator.crd.AutoscalerStatus;
import dev.parley.operator.crd.AutoscalingMode;
import dev.parley.operator.crd.DrainRecord;
import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.PodLoadSummary;
import dev.parley.operator.crd.PoolStatus;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Maps what one pool round saw and did onto the pool's status: per-pod summaries, counts, the autoscaler's memory,
 * availability and the conditions. Holds only the availability tally (share of rounds at or above minReplicas).
 */
public final class PoolStatusMapper {
    private static final int RECENT_DRAINS = 10;

    private final Map<String, long[]> availability = new ConcurrentHashMap<>();

    /** What one round did, for the status and the Degraded condition. */
    public record Round(ScaleDecision decision, PoolPlan plan, Set<String> cleaned, List<String> created) {
    }

    /**
     * @param pods the pool's pods after this round's changes (not being deleted)
     * @param registered registry entries of the pool's region by pod name
     */
    public void fill(PoolDefinition def, PoolStatus out, List<Pod> pods, Map<String, PodLoad> registered, Round round,
                     Long generation) {
        ScaleDecision d = round.decision();
        PoolPlan plan = round.plan();
        int serving = 0;
        int ready = 0;
        int draining = 0;
        out.pods = new ArrayList<>();
        for (Pod p : pods) {
            String name = p.getMetadata().getName();
            if (round.cleaned().contains(name) || plan.replaceNow().containsKey(name)) {
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
        as.highLoadSince = Instants.str(m.highSince());
        as.lowLoadSince = Instants.str(m.lowSince());
        as.lastScaleUpTime = Instants.str(m.lastUp());
        as.lastScaleDownTime = Instants.str(m.lastDown());

        long[] av = availability.computeIfAbsent(def.key(), k -> new long[2]);
        av[0]++;
        if (ready >= def.policy().min()) {
            av[1]++;
        }
        out.availability = Math.round(av[1] * 10000.0 / av[0]) / 10000.0;

        Conditions.set(out.conditions, "Ready", ready >= def.policy().min(),
                ready >= def.policy().min() ? "MinimumAvailable" : "BelowMinimum",
                ready + " of " + d.target() + " pods registered and ACTIVE (min " + def.policy().min() + ")", generation);
        boolean degraded = ready < d.target() || !plan.replaceNow().isEmpty();
        Conditions.set(out.conditions, "Degraded", degraded,
                !plan.replaceNow().isEmpty() ? "PodsReplaced" : degraded ? "Starting" : "AllPodsServing",
                !plan.replaceNow().isEmpty() ? "replaced " + plan.replaceNow() : ready + "/" + d.target() + " serving"
                        + (round.created().isEmpty() ? "" : ", created " + round.created()), generation);
        Conditions.set(out.conditions, "Draining", draining > 0, draining > 0 ? "DrainInProgress" : "NoDrain",
                draining + " pods draining", generation);
        Conditions.set(out.conditions, "ScalingActive", def.policy().mode() == AutoscalingMode.External
                        || !registered.isEmpty(),
                def.policy().mode() == AutoscalingMode.External ? "ExternalAutoscaler" : "Builtin",
                d.reason(), generation);
    }

    /** Conditions, recent drains and the last decision carry over from the previous status. */
    public static void copyHistory(PoolStatus previous, PoolStatus out) {
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

    /** The autoscaler's memory as the status last recorded it (after an operator restart or failover). */
    public static AutoscalerMemory memoryFrom(PoolStatus s) {
        if (s == null || s.autoscaler == null) {
            return AutoscalerMemory.EMPTY;
        }
        return new AutoscalerMemory(s.desiredReplicas, Instants.parse(s.autoscaler.highLoadSince, null),
                Instants.parse(s.autoscaler.lowLoadSince, null), Instants.parse(s.autoscaler.lastScaleUpTime, null),
                Instants.parse(s.autoscaler.lastScaleDownTime, null));
    }

    /** Newest first, at most {@value #RECENT_DRAINS}. */
    public static void addDrainRecord(PoolStatus out, DrainRecord r) {
        out.recentDrains.add(0, r);
        while (out.recentDrains.size() > RECENT_DRAINS) {
            out.recentDrains.remove(out.recentDrains.size() - 1);
        }
    }
}
