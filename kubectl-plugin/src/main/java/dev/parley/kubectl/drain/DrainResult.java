package dev.parley.kubectl.drain;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/**
 * What a real {@code drain} did (kind {@code DrainResult}, docs/kubectl-parley.md). {@code waited} is null without
 * {@code --wait}.
 */
@JsonPropertyOrder({"apiVersion", "kind", "pod", "namespace", "action", "reason", "timeoutSeconds", "phase", "waited"})
public record DrainResult(String apiVersion, String kind, String pod, String namespace, String action, String reason,
                          Integer timeoutSeconds, String phase, Wait waited) {

    /** {@code outcome}: removed (pod gone) or timed-out (--wait-timeout passed first). */
    public record Wait(String outcome, double seconds, List<PhaseSeen> phases, String lastPhase, Long sessionsLeft,
                       Finished finished) {
    }

    /** A phase the watcher saw, with seconds since the watch started. */
    public record PhaseSeen(String phase, double atSeconds) {
    }

    /** The operator's record in the pool's status.recentDrains, when it is there already. */
    public record Finished(String outcome, Double durationSeconds, Long remainingConnections) {
    }
}
