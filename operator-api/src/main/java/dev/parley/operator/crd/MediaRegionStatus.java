package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.crd.generator.annotation.PrinterColumn;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class MediaRegionStatus {
    public Long observedGeneration;
    public List<Condition> conditions = new ArrayList<>();
    public String signalingService;
    public String turnService;
    @PrinterColumn(name = "TURN")
    public Integer turnReady;
    @PrinterColumn(name = "SFU")
    public Integer sfuReady;
    public TurnPoolStatus turn = new TurnPoolStatus();
    public List<PoolCount> sfuPools = new ArrayList<>();
}
