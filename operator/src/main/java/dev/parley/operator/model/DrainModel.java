package dev.parley.operator.model;

import java.time.Duration;
import java.time.Instant;

/**
 * Pure drain state machine: given where a pod's drain is and what the registry says, the next phase.
 * Phases 1 and 2 advance at once (their side effects are done by the reconciler on entry); phase 3 waits
 * for the registry to report zero connections or for {@code migrationSeconds}; phase 4 waits for zero
 * connections or the overall {@code timeoutSeconds}. Only phase 5 deletes, so a pod that still carries
 * meetings is never deleted before its drain budget is spent.
 */
public final class DrainModel {

    /** Outcome recorded when a drain reaches CLEANUP. */
    public enum Outcome { EMPTIED, TIMEOUT, REGISTRY_GONE }

    public record Step(DrainPhase next, Outcome outcome, String reason) {
        public boolean advances(DrainPhase from) {
            return next != from;
        }
    }

    /**
     * @param load the pod's registry entry, or null when it is gone (lease lapsed or removed)
     */
    public Step next(DrainState s, PodLoad load, int migrationSeconds, Instant now) {
        boolean gone = load == null;
        boolean empty = gone || load.connections() == 0;
        Outcome emptyOutcome = gone ? Outcome.REGISTRY_GONE : Outcome.EMPTIED;
        Duration sinceStart = Duration.between(s.startedAt(), now);
        Duration sincePhase = Duration.between(s.phaseSince(), now);
        boolean overBudget = sinceStart.compareTo(Duration.ofSeconds(s.timeoutSeconds())) >= 0;
        return switch (s.phase()) {
            case DRAINING -> new Step(DrainPhase.UNROUTED, null, "removed from Services and selection");
            case UNROUTED -> new Step(DrainPhase.MIGRATING, null, "owners asked to move meetings away");
            case MIGRATING -> {
                if (empty) {
                    yield new Step(DrainPhase.CLEANUP, emptyOutcome, gone ? "registry entry gone" : "no connections left");
                }
                if (overBudget) {
                    yield new Step(DrainPhase.CLEANUP, Outcome.TIMEOUT, "drain timeout with " + load.connections() + " connections left");
                }
                if (sincePhase.compareTo(Duration.ofSeconds(migrationSeconds)) >= 0) {
                    yield new Step(DrainPhase.GRACE, null, load.connections() + " connections left after migration window");
                }
                yield new Step(DrainPhase.MIGRATING, null, load.connections() + " connections left");
            }
            case GRACE -> {
                if (empty) {
                    yield new Step(DrainPhase.CLEANUP, emptyOutcome, gone ? "registry entry gone" : "no connections left");
                }
                if (overBudget) {
                    yield new Step(DrainPhase.CLEANUP, Outcome.TIMEOUT, "drain timeout with " + load.connections() + " connections left");
                }
                yield new Step(DrainPhase.GRACE, null, load.connections() + " connections left");
            }
            case CLEANUP -> new Step(DrainPhase.CLEANUP, empty ? emptyOutcome : Outcome.TIMEOUT, "cleanup");
        };
    }
}
