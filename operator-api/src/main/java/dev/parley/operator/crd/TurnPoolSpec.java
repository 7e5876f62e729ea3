package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;

/** TURN pool of a region: scales on allocations and relayed bandwidth. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self.minReplicas <= self.maxReplicas", message = "turn.minReplicas must be <= turn.maxReplicas")
public class TurnPoolSpec {
    @Min(0)
    @Default("1")
    public Integer minReplicas = 1;

    @Min(1)
    @Max(1000)
    @Default("10")
    public Integer maxReplicas = 10;

    @JsonPropertyDescription("TURN listening port (UDP and TCP).")
    @Min(1)
    @Max(65535)
    @Default("3478")
    public Integer port = 3478;

    public TurnAutoscalingSpec autoscaling = new TurnAutoscalingSpec();

    public DrainSpec drain = new DrainSpec();

    public PodTemplateOverrides template = new PodTemplateOverrides();
}
