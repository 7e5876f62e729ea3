package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;

/**
 * SFU autoscaling: stress of a pod = max(reported stress, egress_bps / egressBpsPerPod, pps / ppsPerPod,
 * subscriptions / subscriptionsPerPod).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SfuAutoscalingSpec extends ThresholdPolicy {
    @Min(1)
    @Default("2000000000")
    @JsonPropertyDescription("Egress bits per second one SFU pod is sized for (stress 1.0).")
    public Long egressBpsPerPod = 2_000_000_000L;

    @Min(1)
    @Default("400000")
    @JsonPropertyDescription("Packets per second (in + out) one SFU pod is sized for.")
    public Long ppsPerPod = 400_000L;

    @Min(1)
    @Default("5000")
    @JsonPropertyDescription("Track subscriptions one SFU pod is sized for.")
    public Long subscriptionsPerPod = 5000L;
}
