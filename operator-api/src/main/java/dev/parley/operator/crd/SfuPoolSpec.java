package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.PrinterColumn;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.model.annotation.SpecReplicas;

@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self.minReplicas <= self.maxReplicas", message = "minReplicas must be <= maxReplicas")
@ValidationRule(value = "self.minReplicas >= 2", message = "an SFU pool needs minReplicas >= 2 for availability")
public class SfuPoolSpec {
    @Required
    @Pattern("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
    @ValidationRule(value = "self == oldSelf", message = "region is immutable")
    @PrinterColumn(name = "Region")
    public String region;

    @Min(2)
    @Default("2")
    @PrinterColumn(name = "Min")
    public Integer minReplicas = 2;

    @Min(2)
    @Max(1000)
    @Default("20")
    @PrinterColumn(name = "Max")
    public Integer maxReplicas = 20;

    @SpecReplicas
    @JsonPropertyDescription("Desired replicas when autoscaling.mode is External (written through the scale "
            + "subresource by an HPA/KEDA); ignored by the builtin autoscaler. Clamped to [minReplicas, maxReplicas].")
    @Min(0)
    public Integer replicas;

    @JsonPropertyDescription("One UDP port for all ICE-lite transports.")
    @Min(1)
    @Max(65535)
    @Default("10000")
    public Integer mediaUdpPort = 10000;

    @Min(1)
    @Max(65535)
    @Default("8090")
    public Integer internalPort = 8090;

    public SfuAutoscalingSpec autoscaling = new SfuAutoscalingSpec();

    public DrainSpec drain = new DrainSpec();

    public HealthSpec health = new HealthSpec();

    public PodTemplateOverrides template = new PodTemplateOverrides();
}
