package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;

/** The autoscaler's memory and its last decision with the reason (also emitted as an Event). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AutoscalerStatus {
    public String highLoadSince;
    public String lowLoadSince;
    public String lastScaleUpTime;
    public String lastScaleDownTime;
    public String lastDecision;
    public String lastDecisionReason;
    public String lastDecisionTime;
}
