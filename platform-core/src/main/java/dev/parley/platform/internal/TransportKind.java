package dev.parley.platform.internal;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;

/** The two peer connections of a participant: browser sends on publish, receives on subscribe. */
public enum TransportKind {
    PUBLISH, SUBSCRIBE;

    @JsonValue
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static TransportKind fromWire(String s) {
        return switch (s) {
            case "publish" -> PUBLISH;
            case "subscribe" -> SUBSCRIBE;
            default -> throw new IllegalArgumentException("transport kind must be publish or subscribe");
        };
    }
}
