package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class PoolCount {
    public String name;
    public Integer replicas;
    public Integer readyReplicas;
    public Integer drainingReplicas;
    public Boolean found;
}
