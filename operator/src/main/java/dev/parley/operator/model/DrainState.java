package dev.parley.operator.model;

import java.time.Instant;

/** A pod's drain progress as recorded in its annotations. */
public record DrainState(DrainPhase phase, Instant startedAt, Instant phaseSince, String reason, int timeoutSeconds) {
}
