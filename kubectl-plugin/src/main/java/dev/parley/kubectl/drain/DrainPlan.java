package dev.parley.kubectl.drain;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/**
 * What {@code drain --dry-run} would do, computed from reads only (kind {@code DrainPlan}, docs/kubectl-parley.md).
 * Counts come from the pool's status as the operator last wrote it; null means "not reported".
 */
@JsonPropertyOrder({"apiVersion", "kind", "dryRun", "pod", "sessions", "moveTo", "budget", "pdb", "actions", "warnings"})
public record DrainPlan(String apiVersion, String kind, String dryRun, Target pod, Sessions sessions, List<Candidate> moveTo,
                        Budget budget, PdbEffect pdb, List<String> actions, List<String> warnings) {

    /** The pod to drain; {@code alreadyDraining} means the plan changes nothing. */
    public record Target(String namespace, String name, String component, String pool, String region, String state,
                         String drainPhase, boolean alreadyDraining) {
    }

    /** What would have to move: transports (SFU participants' connections) or allocations (TURN). */
    public record Sessions(Long connections, Long transports, Long allocations, Long subscriptions, Double load) {
    }

    /** An ACTIVE, not draining pod of the same pool that can take the sessions. */
    public record Candidate(String pod, Double load, Long connections, Long egressBps, Long subscriptions) {
    }

    /** Seconds; {@code timeoutSource} is "flag" (--timeout) or "pool" (spec.drain.timeoutSeconds). */
    public record Budget(Integer timeoutSeconds, String timeoutSource, Integer migrationSeconds) {
    }

    /**
     * The pool's PodDisruptionBudget. From phase 2 the pod leaves its selection (serving=false), so evictions
     * (node drains) still may take {@code maxUnavailable} of the remaining serving pods; the operator deletes the
     * drained pod itself and uses no disruption.
     */
    public record PdbEffect(String name, boolean found, String maxUnavailable, Integer disruptionsAllowedNow,
                            int servingPodsNow, int servingPodsDuringDrain, Integer minReplicas, boolean replacementStarts) {
    }
}
