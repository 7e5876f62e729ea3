package dev.parley.controller.recording;

import java.util.Set;

/** The recording job states of seed 000 and which of them still take media. */
final class RecordingStates {
    static final Set<String> ALL = Set.of("requested", "starting", "recording", "finalizing", "ready", "partial", "failed");
    static final Set<String> TERMINAL = Set.of("ready", "partial", "failed");
    /** States with a composite to download ({@code partial}: with the missing ranges filled). */
    static final Set<String> DOWNLOADABLE = Set.of("ready", "partial");

    private RecordingStates() {
    }

    static boolean isActive(String state) {
        return "requested".equals(state) || "starting".equals(state) || "recording".equals(state);
    }
}
