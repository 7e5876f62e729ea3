package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;

/** When a pod counts as broken and gets replaced. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class HealthSpec {
    @Min(1)
    @Default("120")
    @JsonPropertyDescription("A pod that has not registered in etcd this long after creation is replaced.")
    public Integer registrationGraceSeconds = 120;

    @Min(1)
    @Default("60")
    @JsonPropertyDescription("A registered pod that stays unready this long is drained (meetings moved) and replaced.")
    public Integer unreadyThresholdSeconds = 60;
}
