package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;

/** A finished drain: who, why, how long, and whether anything was still connected when the pod went. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DrainRecord {
    public String pod;
    public String reason;
    public String startedAt;
    public String finishedAt;
    public Double durationSeconds;
    /** emptied, timeout, pod-gone */
    public String outcome;
    public Long remainingConnections;
}
