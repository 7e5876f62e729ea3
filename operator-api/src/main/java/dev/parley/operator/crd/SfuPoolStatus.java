package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.PrinterColumn;
import io.fabric8.kubernetes.model.annotation.LabelSelector;
import io.fabric8.kubernetes.model.annotation.StatusReplicas;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class SfuPoolStatus extends PoolStatus {
    @StatusReplicas
    @PrinterColumn(name = "Replicas")
    @JsonPropertyDescription("Serving (not draining) pods, registered or not.")
    public Integer replicas;

    @LabelSelector
    @JsonPropertyDescription("Label selector of this pool's pods, for the scale subresource (HPA/KEDA).")
    public String selector;

    @Override
    public Integer getReplicas() {
        return replicas;
    }

    @Override
    public void setReplicas(Integer replicas) {
        this.replicas = replicas;
    }
}
