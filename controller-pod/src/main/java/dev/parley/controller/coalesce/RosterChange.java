package dev.parley.controller.coalesce;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What happened to one roster entry: {@code PATCH} sets some fields (creating the entry when absent: a join, a
 * state change), {@code REMOVE} deletes it (left, removed), {@code REPLACE} sets the entry to exactly these fields
 * (only made by merging: a removal followed by a join). Two changes merge into one with the same effect.
 */
public record RosterChange(Kind kind, Map<String, String> fields) {
    public enum Kind { PATCH, REPLACE, REMOVE }

    public RosterChange {
        fields = Map.copyOf(fields);
    }

    public static RosterChange patch(Map<String, String> fields) {
        return new RosterChange(Kind.PATCH, fields);
    }

    public static RosterChange remove() {
        return new RosterChange(Kind.REMOVE, Map.of());
    }

    /** This change, then {@code later}, as one change. */
    public RosterChange then(RosterChange later) {
        return switch (later.kind) {
            case REMOVE, REPLACE -> later;
            case PATCH -> switch (kind) {
                case REMOVE -> new RosterChange(Kind.REPLACE, later.fields);
                case PATCH, REPLACE -> new RosterChange(kind, merged(fields, later.fields));
            };
        };
    }

    /** The entry after this change ({@code before} null: absent); null when the entry is gone. */
    public Map<String, String> applyTo(Map<String, String> before) {
        return switch (kind) {
            case REMOVE -> null;
            case REPLACE -> fields;
            case PATCH -> before == null ? fields : merged(before, fields);
        };
    }

    private static Map<String, String> merged(Map<String, String> a, Map<String, String> b) {
        Map<String, String> m = new LinkedHashMap<>(a);
        m.putAll(b);
        return m;
    }
}
