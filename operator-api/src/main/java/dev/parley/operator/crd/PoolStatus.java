package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

/** Status shared by the SFU pool and a region's TURN pool (replicas live in the subclasses for the scale subresource). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public abstract class PoolStatus {
    public Long observedGeneration;

    @JsonPropertyDescription("Registered, ACTIVE, serving pods.")
    public Integer readyReplicas;

    @JsonPropertyDescription("Pods in one of the five drain phases.")
    public Integer drainingReplicas;

    @JsonPropertyDescription("What the autoscaler (or spec.replicas in External mode) currently wants.")
    public Integer desiredReplicas;

    public Double averageLoad;

    public List<Condition> conditions = new ArrayList<>();

    public List<PodLoadSummary> pods = new ArrayList<>();

    public AutoscalerStatus autoscaler = new AutoscalerStatus();

    @JsonPropertyDescription("Most recent finished drains, newest first.")
    public List<DrainRecord> recentDrains = new ArrayList<>();

    @JsonPropertyDescription("Share of reconciles (since operator start) where readyReplicas >= minReplicas.")
    public Double availability;

    public abstract Integer getReplicas();

    public abstract void setReplicas(Integer replicas);
}
