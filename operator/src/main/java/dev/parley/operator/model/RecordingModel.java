package dev.parley.operator.model;

import dev.parley.operator.crd.RecordingPhase;

/**
 * Pure recording-job decision: run one recorder pod per generation; when it fails, start generation + 1
 * until {@code retryLimit} retries are used; mirror what the current generation reports.
 */
public final class RecordingModel {

    public enum PodState { NONE, PENDING, RUNNING, SUCCEEDED, FAILED }

    /**
     * @param generation current generation (0: none started yet)
     * @param failedGenerations how many generations failed so far
     * @param reportedPhase phase the current generation reports (registry or termination message), may be null
     */
    public record Observed(int generation, PodState pod, RecordingPhase current, String reportedPhase,
                           int retryLimit, int failedGenerations) {
    }

    public enum Action { NONE, START_GENERATION, GIVE_UP }

    public record Decision(Action action, int generation, RecordingPhase phase, int failedGenerations, String message) {
    }

    public Decision decide(Observed o) {
        if (o.current() != null && o.current().terminal()) {
            return new Decision(Action.NONE, o.generation(), o.current(), o.failedGenerations(), "finished");
        }
        if (o.generation() == 0) {
            return new Decision(Action.START_GENERATION, 1, RecordingPhase.STARTING, 0, "starting generation 1");
        }
        RecordingPhase reported = parse(o.reportedPhase());
        switch (o.pod()) {
            case NONE, FAILED -> {
                // A vanished pod of a non-finished job is a failure of that generation too.
                int failed = o.failedGenerations() + 1;
                if (failed > o.retryLimit()) {
                    return new Decision(Action.GIVE_UP, o.generation(), RecordingPhase.FAILED, failed,
                            "generation " + o.generation() + " failed; retry limit " + o.retryLimit() + " reached");
                }
                return new Decision(Action.START_GENERATION, o.generation() + 1, RecordingPhase.STARTING, failed,
                        "generation " + o.generation() + " failed (" + o.pod() + "); starting generation " + (o.generation() + 1));
            }
            case SUCCEEDED -> {
                RecordingPhase end = reported != null && reported.terminal() ? reported : RecordingPhase.PARTIAL;
                return new Decision(Action.NONE, o.generation(), end, o.failedGenerations(),
                        reported == null ? "recorder exited without a final report" : "recorder finished: " + end.wire());
            }
            case PENDING -> {
                return new Decision(Action.NONE, o.generation(), RecordingPhase.STARTING, o.failedGenerations(), "pod pending");
            }
            default -> {
                RecordingPhase p = reported == null || reported.terminal() ? RecordingPhase.STARTING : reported;
                if (reported == RecordingPhase.REQUESTED) {
                    p = RecordingPhase.STARTING;
                }
                return new Decision(Action.NONE, o.generation(), p, o.failedGenerations(), "generation " + o.generation() + " running");
            }
        }
    }

    private static RecordingPhase parse(String s) {
        if (s == null) {
            return null;
        }
        try {
            return RecordingPhase.fromWire(s);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
