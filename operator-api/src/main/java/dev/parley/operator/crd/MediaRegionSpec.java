package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.PrinterColumn;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.ArrayList;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class MediaRegionSpec {
    @Required
    @Pattern("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
    @ValidationRule(value = "self == oldSelf", message = "region is immutable")
    @PrinterColumn(name = "Region")
    @JsonPropertyDescription("Region name used in etcd keys (/parley/v1/regions/{region}/...) and pod labels.")
    public String region;

    @JsonPropertyDescription("Stable public hostname for signaling; it never changes while pods come and go.")
    public String signalingHost;

    @JsonPropertyDescription("Stable public hostname for TURN.")
    public String turnHost;

    @JsonPropertyDescription("Label selector values of the controller pods the signaling Service routes to.")
    public String controllerSelector = "parley-controller";

    @JsonPropertyDescription("Names of the SfuPools (same namespace) that serve this region.")
    public List<String> sfuPools = new ArrayList<>();

    @JsonPropertyDescription("The region's TURN pool, scaled independently of the SFU pools.")
    public TurnPoolSpec turn = new TurnPoolSpec();
}
