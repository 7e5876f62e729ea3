package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class TurnPoolStatus extends PoolStatus {
    public Integer replicas;

    @Override
    public Integer getReplicas() {
        return replicas;
    }

    @Override
    public void setReplicas(Integer replicas) {
        this.replicas = replicas;
    }
}
