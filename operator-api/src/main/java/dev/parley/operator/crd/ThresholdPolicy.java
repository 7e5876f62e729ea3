package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;

/** Thresholds, windows, steps and cooldowns shared by the SFU and TURN autoscalers (each has its own values). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self.scaleDownThreshold < self.scaleUpThreshold",
        message = "scaleDownThreshold must be below scaleUpThreshold")
public class ThresholdPolicy {
    @JsonPropertyDescription("Builtin: the operator decides replicas from registry load. External: spec.replicas "
            + "(written by an HPA/KEDA through the scale subresource) decides; the operator still drains.")
    @Default("Builtin")
    public AutoscalingMode mode = AutoscalingMode.Builtin;

    @JsonPropertyDescription("Average pool load (0..1+) above which the pool grows.")
    @Min(0.01)
    @Max(2)
    @Default("0.75")
    public Double scaleUpThreshold = 0.75;

    @JsonPropertyDescription("Average pool load below which the pool shrinks (after the stabilization window).")
    @Min(0)
    @Max(2)
    @Default("0.3")
    public Double scaleDownThreshold = 0.3;

    @JsonPropertyDescription("Load per pod the autoscaler aims for when it computes a new size.")
    @Min(0.01)
    @Max(2)
    @Default("0.55")
    public Double targetLoad = 0.55;

    @Min(0)
    @Default("0")
    @JsonPropertyDescription("Load must stay above scaleUpThreshold this long before the pool grows.")
    public Integer scaleUpStabilizationSeconds = 0;

    @Min(0)
    @Default("300")
    @JsonPropertyDescription("Load must stay below scaleDownThreshold this long before the pool shrinks.")
    public Integer scaleDownStabilizationSeconds = 300;

    @Min(1)
    @Default("2")
    public Integer scaleUpMaxStep = 2;

    @Min(1)
    @Default("1")
    public Integer scaleDownMaxStep = 1;

    @Min(0)
    @Default("30")
    public Integer scaleUpCooldownSeconds = 30;

    @Min(0)
    @Default("120")
    @JsonPropertyDescription("Minimum time after any scaling before the next scale-down.")
    public Integer scaleDownCooldownSeconds = 120;
}
