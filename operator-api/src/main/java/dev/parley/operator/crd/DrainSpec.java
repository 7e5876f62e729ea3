package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class DrainSpec {
    @Min(1)
    @Default("600")
    @JsonPropertyDescription("Whole drain budget (phases 1-4). After it, remaining connections are cut and the pod deleted.")
    public Integer timeoutSeconds = 600;

    @Min(0)
    @Default("120")
    @JsonPropertyDescription("Phase 3: how long owners get to move meetings before the pod enters the grace phase.")
    public Integer migrationSeconds = 120;
}
