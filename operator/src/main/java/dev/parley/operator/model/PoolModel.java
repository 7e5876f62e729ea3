package dev.parley.operator.model;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Pure desired-state computation for a pool (Strimzi-style model): which pods are broken, which are drained
 * for scale-down (least loaded first), how many to create. Draining pods never count towards the target,
 * so a pod taken out for health or by hand is replaced while it drains.
 */
public final class PoolModel {

    public record Health(Duration registrationGrace, Duration unreadyThreshold) {
    }

    public PoolPlan plan(List<PoolPod> pods, int target, Capacity capacity, Health health, Instant now) {
        Map<String, String> replace = new LinkedHashMap<>();
        Map<String, String> drain = new LinkedHashMap<>();
        List<String> notes = new ArrayList<>();
        List<PoolPod> serving = new ArrayList<>();

        for (PoolPod p : pods) {
            if (p.draining()) {
                continue;
            }
            if (p.failed()) {
                replace.put(p.name(), "PodFailed");
            } else if (p.load() == null && p.everRegistered()) {
                replace.put(p.name(), "LeaseLapsed");
            } else if (p.load() == null && Duration.between(p.created(), now).compareTo(health.registrationGrace()) > 0) {
                replace.put(p.name(), "NeverRegistered");
            } else if (p.drainRequested() != null) {
                drain.put(p.name(), p.drainRequested());
            } else if (p.load() != null && !p.load().active()) {
                // DRAINING in the registry without our annotations: someone drained it directly; follow it.
                drain.put(p.name(), "RegistryDraining");
            } else if (p.unreadySince() != null && p.load() != null
                    && Duration.between(p.unreadySince(), now).compareTo(health.unreadyThreshold()) > 0) {
                drain.put(p.name(), "Unhealthy");
            } else {
                serving.add(p);
            }
        }

        int create = 0;
        if (serving.size() < target) {
            create = target - serving.size();
        } else if (serving.size() > target) {
            int surplus = serving.size() - target;
            // Unregistered pods carry nothing: cheapest to remove. Then least load, fewest connections, newest.
            serving.sort(Comparator
                    .comparing((PoolPod p) -> p.load() != null)
                    .thenComparingDouble(p -> p.load() == null ? 0 : capacity.load(p.load()))
                    .thenComparingLong(p -> p.load() == null ? 0 : p.load().connections())
                    .thenComparing(PoolPod::created, Comparator.reverseOrder()));
            for (PoolPod p : serving.subList(0, surplus)) {
                drain.put(p.name(), "ScaleDown");
            }
        }
        return new PoolPlan(create, drain, replace, notes);
    }
}
