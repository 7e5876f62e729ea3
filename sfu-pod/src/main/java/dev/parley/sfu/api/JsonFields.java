package dev.parley.sfu.api;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Set;

/**
 * Typed reads of a request body's JSON tree, before anything is bound or applied. Jackson alone would turn a
 * missing number into 0, a missing boolean into false, {@code "1"} into 1 and a {@code null} body or element into
 * a null record; here each of those is a {@link Invalid} whose message names the field by its path
 * ({@code grants[1].ttl_ms}).
 */
final class JsonFields {
    /** A malformed body: answered 400 {@code bad_request} with this message as the detail. */
    static final class Invalid extends RuntimeException {
        Invalid(String detail) { super(detail, null, false, false); }
    }

    private JsonFields() {}

    /** The body itself: a JSON object (not null, not an array, not empty). */
    static JsonNode body(JsonNode n) {
        if (n == null || !n.isObject()) throw new Invalid("body: must be a JSON object");
        return n;
    }

    /** {@code n} as an object; {@code path} names it. */
    static JsonNode object(JsonNode n, String path) {
        if (n == null || n.isMissingNode()) throw new Invalid(path + ": required");
        if (!n.isObject()) throw new Invalid(path + ": must be an object" + (n.isNull() ? ", not null" : ""));
        return n;
    }

    static JsonNode object(JsonNode parent, String field, String prefix) {
        return object(parent.get(field), prefix + field);
    }

    static String text(JsonNode parent, String field, String prefix) {
        JsonNode v = required(parent, field, prefix);
        if (!v.isTextual() || v.textValue().isEmpty()) throw new Invalid(prefix + field + ": must be a non-empty string");
        return v.textValue();
    }

    /** Absent or null → null; else a string. */
    static String optionalText(JsonNode parent, String field, String prefix) {
        JsonNode v = parent.get(field);
        if (v == null || v.isNull()) return null;
        if (!v.isTextual()) throw new Invalid(prefix + field + ": must be a string");
        return v.textValue();
    }

    static String oneOf(JsonNode parent, String field, String prefix, Set<String> values) {
        String s = text(parent, field, prefix);
        if (!values.contains(s)) throw new Invalid(prefix + field + ": must be one of " + String.join(", ", new java.util.TreeSet<>(values)));
        return s;
    }

    static long integer(JsonNode parent, String field, String prefix) {
        return integer(parent, field, prefix, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    static long integer(JsonNode parent, String field, String prefix, long min, long max) {
        return checkInteger(required(parent, field, prefix), prefix + field, min, max);
    }

    /** Absent or null → {@code dflt}; else an integer within {@code min..max}. */
    static long optionalInteger(JsonNode parent, String field, String prefix, long dflt, long min, long max) {
        JsonNode v = parent.get(field);
        return v == null || v.isNull() ? dflt : checkInteger(v, prefix + field, min, max);
    }

    /** Absent or null → {@code dflt}; else a number within {@code min..max}. */
    static double optionalNumber(JsonNode parent, String field, String prefix, double dflt, double min, double max) {
        JsonNode v = parent.get(field);
        if (v == null || v.isNull()) return dflt;
        if (!v.isNumber() || !(v.doubleValue() >= min && v.doubleValue() <= max)) {
            throw new Invalid(prefix + field + ": must be a number within " + min + ".." + max);
        }
        return v.doubleValue();
    }

    static boolean bool(JsonNode parent, String field, String prefix) {
        JsonNode v = required(parent, field, prefix);
        if (!v.isBoolean()) throw new Invalid(prefix + field + ": must be true or false");
        return v.booleanValue();
    }

    /** Absent or null → {@code dflt}; else a boolean. */
    static boolean optionalBool(JsonNode parent, String field, String prefix, boolean dflt) {
        JsonNode v = parent.get(field);
        if (v == null || v.isNull()) return dflt;
        if (!v.isBoolean()) throw new Invalid(prefix + field + ": must be true or false");
        return v.booleanValue();
    }

    static JsonNode array(JsonNode parent, String field, String prefix) {
        JsonNode v = required(parent, field, prefix);
        if (!v.isArray()) throw new Invalid(prefix + field + ": must be an array");
        return v;
    }

    /** Absent or null → null; else an array. */
    static JsonNode optionalArray(JsonNode parent, String field, String prefix) {
        JsonNode v = parent.get(field);
        if (v == null || v.isNull()) return null;
        if (!v.isArray()) throw new Invalid(prefix + field + ": must be an array");
        return v;
    }

    private static JsonNode required(JsonNode parent, String field, String prefix) {
        JsonNode v = parent.get(field);
        if (v == null || v.isNull()) throw new Invalid(prefix + field + ": required");
        return v;
    }

    private static long checkInteger(JsonNode v, String path, long min, long max) {
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < min || v.longValue() > max) {
            throw new Invalid(path + ": must be an integer" + (min == Long.MIN_VALUE ? "" : " within " + min + ".." + max));
        }
        return v.longValue();
    }
}
