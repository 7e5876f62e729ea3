package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;

/** One pod of a pool as the operator last saw it (registry state + load + drain phase). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PodLoadSummary {
    public String name;
    /** Registry state (ACTIVE, DRAINING) or UNREGISTERED. */
    public String state;
    /** Drain phase, absent when not draining. */
    public String drainPhase;
    public Double load;
    public Long egressBps;
    public Long pps;
    public Long subscriptions;
    public Long transports;
    public Long allocations;
    public Long relayedBps;
}
