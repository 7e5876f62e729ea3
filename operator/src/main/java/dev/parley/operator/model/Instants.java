package dev.parley.operator.model;

import java.time.Instant;
import java.time.format.DateTimeParseException;

/** Timestamps kept as strings in annotations and status. */
public final class Instants {
    private Instants() {
    }

    public static Instant parse(String s, Instant fallback) {
        if (s == null || s.isBlank()) {
            return fallback;
        }
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            return fallback;
        }
    }

    public static String str(Instant i) {
        return i == null ? null : i.toString();
    }
}
