package dev.parley.operator.model;

import dev.parley.operator.crd.AutoscalingMode;
import dev.parley.operator.crd.ThresholdPolicy;
import java.time.Duration;

/** A pool's bounds and autoscaling knobs, in model terms. */
public record ScalingPolicy(int min, int max, AutoscalingMode mode, double upThreshold, double downThreshold,
                            double targetLoad, Duration upStabilization, Duration downStabilization,
                            int upStep, int downStep, Duration upCooldown, Duration downCooldown) {

    public static ScalingPolicy of(int min, int max, ThresholdPolicy p) {
        return new ScalingPolicy(min, max, p.mode == null ? AutoscalingMode.Builtin : p.mode,
                p.scaleUpThreshold, p.scaleDownThreshold, p.targetLoad,
                Duration.ofSeconds(p.scaleUpStabilizationSeconds), Duration.ofSeconds(p.scaleDownStabilizationSeconds),
                p.scaleUpMaxStep, p.scaleDownMaxStep,
                Duration.ofSeconds(p.scaleUpCooldownSeconds), Duration.ofSeconds(p.scaleDownCooldownSeconds));
    }

    int clamp(int n) {
        return Math.max(min, Math.min(max, n));
    }
}
