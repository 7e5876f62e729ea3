package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;

/**
 * TURN autoscaling: load of a pod = max(allocations / allocationsPerPod, relayed_bps / relayedBpsPerPod).
 * Its thresholds and windows are separate from the SFU's (seed 001: independent orchestrators).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TurnAutoscalingSpec extends ThresholdPolicy {
    @JsonPropertyDescription("Allocations one TURN pod is sized for (load 1.0).")
    @Min(1)
    @Default("1000")
    public Long allocationsPerPod = 1000L;

    @JsonPropertyDescription("Relayed bits per second one TURN pod is sized for (load 1.0).")
    @Min(1)
    @Default("1000000000")
    public Long relayedBpsPerPod = 1_000_000_000L;
}
