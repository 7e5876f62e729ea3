package dev.parley.operator.model;

import dev.parley.operator.crd.AutoscalingMode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * Pure autoscaling decision (no Kubernetes, no etcd). One instance serves every pool; SFU and TURN pools
 * differ only in the policy and in how a pod's load is computed, and each keeps its own memory, so the two
 * never influence each other.
 *
 * <p>Rules: the target moves up when the average load over serving pods (registered ACTIVE pods' load,
 * starting pods counted as idle) stayed above
 * {@code upThreshold} for the up-stabilization window and the up-cooldown passed; it moves down when the
 * average stayed below {@code downThreshold} for the (longer) down-stabilization window and the down-cooldown
 * passed since any scaling. The new size aims at {@code targetLoad} per pod, limited by the step sizes and
 * {@code [min, max]}.
 */
public final class Autoscaler {

    /**
     * @param loads load of each registered, ACTIVE, serving pod
     * @param externalReplicas spec.replicas in External mode (null: use min)
     * @param servingPods serving pods right now (registered or not), used for the first target
     */
    public ScaleDecision decide(ScalingPolicy p, List<Double> loads, int servingPods, Integer externalReplicas,
                                AutoscalerMemory m, Instant now) {
        int previous = m.target() == null ? p.clamp(servingPods) : m.target();
        double total = loads.stream().mapToDouble(Double::doubleValue).sum();
        // Pods that are starting (serving but not yet registered) count as capacity with no load, so one burst
        // of load is not answered again and again while the new pods come up.
        double avg = loads.isEmpty() ? 0 : total / Math.max(loads.size(), servingPods);

        if (p.mode() == AutoscalingMode.External) {
            int want = p.clamp(externalReplicas == null ? p.min() : externalReplicas);
            return result(p, previous, want, "spec.replicas=" + externalReplicas + " (External mode)", avg,
                    new AutoscalerMemory(want, null, null, m.lastUp(), m.lastDown()), now);
        }
        if (previous != p.clamp(previous)) {
            int want = p.clamp(previous);
            return result(p, previous, want, "target outside [minReplicas, maxReplicas]", avg,
                    new AutoscalerMemory(want, null, null, m.lastUp(), m.lastDown()), now);
        }
        if (loads.isEmpty()) {
            return new ScaleDecision(previous, previous, ScaleDecision.Direction.HOLD, "no registered pods report load",
                    false, avg, new AutoscalerMemory(previous, null, null, m.lastUp(), m.lastDown()));
        }

        int ideal = (int) Math.ceil(total / p.targetLoad());
        if (avg > p.upThreshold()) {
            Instant highSince = m.highSince() == null ? now : m.highSince();
            AutoscalerMemory held = new AutoscalerMemory(previous, highSince, null, m.lastUp(), m.lastDown());
            if (previous >= p.max()) {
                return hold(previous, avg, held, "load %.2f above %.2f but at maxReplicas %d", avg, p.upThreshold(), p.max());
            }
            if (elapsed(highSince, now).compareTo(p.upStabilization()) < 0) {
                return hold(previous, avg, held, "load %.2f above %.2f, stabilizing for %ds", avg, p.upThreshold(),
                        p.upStabilization().toSeconds());
            }
            if (m.lastUp() != null && elapsed(m.lastUp(), now).compareTo(p.upCooldown()) < 0) {
                return hold(previous, avg, held, "load %.2f above %.2f, scale-up cooldown", avg, p.upThreshold());
            }
            int want = p.clamp(Math.min(previous + p.upStep(), Math.max(previous + 1, ideal)));
            return result(p, previous, want, String.format(Locale.ROOT,
                            "average load %.2f > scale-up threshold %.2f (%d pods reporting)", avg, p.upThreshold(), loads.size()),
                    avg, new AutoscalerMemory(want, null, null, now, m.lastDown()), now);
        }
        if (avg < p.downThreshold()) {
            Instant lowSince = m.lowSince() == null ? now : m.lowSince();
            AutoscalerMemory held = new AutoscalerMemory(previous, null, lowSince, m.lastUp(), m.lastDown());
            if (previous <= p.min()) {
                return hold(previous, avg, held, "load %.2f below %.2f but at minReplicas %d", avg, p.downThreshold(), p.min());
            }
            if (elapsed(lowSince, now).compareTo(p.downStabilization()) < 0) {
                return hold(previous, avg, held, "load %.2f below %.2f, stabilizing %ds of %ds", avg, p.downThreshold(),
                        elapsed(lowSince, now).toSeconds(), p.downStabilization().toSeconds());
            }
            Instant lastAny = latest(m.lastUp(), m.lastDown());
            if (lastAny != null && elapsed(lastAny, now).compareTo(p.downCooldown()) < 0) {
                return hold(previous, avg, held, "load %.2f below %.2f, scale-down cooldown", avg, p.downThreshold());
            }
            int want = p.clamp(Math.max(previous - p.downStep(), Math.min(previous - 1, ideal)));
            // Restart the window: every further step down needs its own full stabilization period.
            return result(p, previous, want, String.format(Locale.ROOT,
                            "average load %.2f < scale-down threshold %.2f for %ds", avg, p.downThreshold(),
                            elapsed(lowSince, now).toSeconds()),
                    avg, new AutoscalerMemory(want, null, now, m.lastUp(), now), now);
        }
        return new ScaleDecision(previous, previous, ScaleDecision.Direction.HOLD,
                String.format(Locale.ROOT, "average load %.2f within [%.2f, %.2f]", avg, p.downThreshold(), p.upThreshold()),
                false, avg, new AutoscalerMemory(previous, null, null, m.lastUp(), m.lastDown()));
    }

    private static ScaleDecision result(ScalingPolicy p, int previous, int want, String reason, double avg,
                                        AutoscalerMemory mem, Instant now) {
        ScaleDecision.Direction d = want > previous ? ScaleDecision.Direction.UP
                : want < previous ? ScaleDecision.Direction.DOWN : ScaleDecision.Direction.HOLD;
        return new ScaleDecision(previous, want, d, reason, want != previous, avg, mem);
    }

    private static ScaleDecision hold(int previous, double avg, AutoscalerMemory mem, String fmt, Object... args) {
        return new ScaleDecision(previous, previous, ScaleDecision.Direction.HOLD, String.format(Locale.ROOT, fmt, args),
                false, avg, mem);
    }

    private static Duration elapsed(Instant since, Instant now) {
        return Duration.between(since, now);
    }

    private static Instant latest(Instant a, Instant b) {
        if (a == null) {
            return b;
        }
        return b == null || a.isAfter(b) ? a : b;
    }
}
