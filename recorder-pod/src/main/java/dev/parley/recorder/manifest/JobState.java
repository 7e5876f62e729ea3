package dev.parley.recorder.manifest;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Recording job states from seed 000: the request being stored is not the recorder receiving media. */
public enum JobState {
    REQUESTED, STARTING, RECORDING, FINALIZING, READY, PARTIAL, FAILED;

    @JsonValue
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean terminal() {
        return this == READY || this == PARTIAL || this == FAILED;
    }
}
