package dev.parley.controller.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Strict request-body reading: every problem becomes a 400 with a stable code and the offending field,
 * never a 500. Bodies are parsed by us (not bound by the framework) so that the error is always ours.
 */
public final class JsonBody {
    public static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .build();
    private static final ObjectMapper CANONICAL = JsonMapper.builder()
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).build();
    private static final Pattern KEY = Pattern.compile("[\\x21-\\x7e]{1,200}");

    static {
        JSON.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(32).build());
    }

    private JsonBody() {
    }

    /** Parses a JSON object body. */
    public static ObjectNode object(String raw) {
        if (raw == null || raw.isBlank()) {
            throw ApiException.badRequest("missing_body", "a JSON object body is required");
        }
        JsonNode n;
        try {
            n = JSON.readTree(raw);
        } catch (Exception e) {
            throw ApiException.badRequest("malformed_json", "request body is not valid JSON");
        }
        if (n == null || !n.isObject()) {
            throw ApiException.badRequest("invalid_body", "request body must be a JSON object");
        }
        return (ObjectNode) n;
    }

    /** Checks the Idempotency-Key header. */
    public static String idempotencyKey(String header) {
        if (header == null || header.isEmpty()) {
            throw ApiException.badRequest("missing_idempotency_key", "the Idempotency-Key header is required");
        }
        if (!KEY.matcher(header).matches()) {
            throw ApiException.badRequest("invalid_idempotency_key", "Idempotency-Key must be 1-200 visible ASCII characters");
        }
        return header;
    }

    private static ApiException invalid(String field, String expected) {
        return ApiException.badRequest("invalid_field", "field '" + field + "' must be " + expected)
                .with("field", field);
    }

    private static ApiException missing(String field) {
        return ApiException.badRequest("missing_field", "field '" + field + "' is required").with("field", field);
    }

    public static String text(ObjectNode o, String field, boolean required, int maxLen) {
        JsonNode n = o.get(field);
        if (n == null || n.isNull()) {
            if (required) {
                throw missing(field);
            }
            return null;
        }
        if (!n.isTextual()) {
            throw invalid(field, "a string");
        }
        String s = n.asText();
        if (s.length() > maxLen || (required && s.isBlank())) {
            throw invalid(field, "a non-empty string of at most " + maxLen + " characters");
        }
        return s;
    }

    public static Boolean bool(ObjectNode o, String field, boolean required) {
        JsonNode n = o.get(field);
        if (n == null || n.isNull()) {
            if (required) {
                throw missing(field);
            }
            return null;
        }
        if (!n.isBoolean()) {
            throw invalid(field, "a boolean");
        }
        return n.asBoolean();
    }

    public static Long nonNegativeLong(ObjectNode o, String field, boolean required) {
        JsonNode n = o.get(field);
        if (n == null || n.isNull()) {
            if (required) {
                throw missing(field);
            }
            return null;
        }
        if (!n.isIntegralNumber() || !n.canConvertToLong() || n.asLong() < 0) {
            throw invalid(field, "a non-negative integer");
        }
        return n.asLong();
    }

    public static UUID uuid(ObjectNode o, String field, boolean required) {
        String s = text(o, field, required, 64);
        if (s == null) {
            return null;
        }
        return parseUuid(s, field);
    }

    public static UUID parseUuid(String s, String field) {
        try {
            if (s.length() != 36) {
                throw new IllegalArgumentException();
            }
            return UUID.fromString(s);
        } catch (IllegalArgumentException e) {
            throw invalid(field, "a UUID");
        }
    }

    public static String oneOf(ObjectNode o, String field, boolean required, String... allowed) {
        String s = text(o, field, required, 64);
        if (s == null) {
            return null;
        }
        for (String a : allowed) {
            if (a.equals(s)) {
                return s;
            }
        }
        throw invalid(field, "one of " + String.join(", ", allowed));
    }

    /** SHA-256 of the canonical (key-sorted) JSON: same request = same hash regardless of key order. */
    public static String hash(JsonNode n) {
        try {
            Object canonical = CANONICAL.treeToValue(n, Object.class);
            byte[] bytes = CANONICAL.writeValueAsBytes(canonical);
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException | com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String hash(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static ObjectNode obj() {
        return JSON.createObjectNode();
    }
}
