package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

public enum RecordingPhase {
    REQUESTED, STARTING, RECORDING, FINALIZING, READY, PARTIAL, FAILED;

    @JsonValue
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static RecordingPhase fromWire(String s) {
        return valueOf(s.toUpperCase(Locale.ROOT));
    }

    public boolean terminal() {
        return this == READY || this == PARTIAL || this == FAILED;
    }
}
