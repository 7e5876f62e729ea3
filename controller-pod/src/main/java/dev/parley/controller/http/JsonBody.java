package dev.parley.controller.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Strict request-body reading: every problem becomes a 400 with a stable code and the offending field,
 * never a 500. Bodies are parsed by us (not bound by the framework) so that the error is always ours.
 */
public final class JsonBody {
    public static final ObjectMapper JSON = JsonMapper.builder(pooledFactory())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .build();
    private static final ObjectMapper CANONICAL = JsonMapper.builder(pooledFactory())
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).build();
    private static final Pattern KEY = Pattern.compile("[\\x21-\\x7e]{1,200}");

    static {
        JSON.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(32).build());
    }

    private JsonBody() {
    }

    /**
     * A JSON factory whose parse/write buffers come from one pool shared by all threads. Jackson's default pool
     * is per thread, and our request handlers are virtual threads (a new one per request), so every parse and
     * write allocated fresh buffers: the idempotency hash alone was the largest allocation site of a join.
     */
    public static JsonFactory pooledFactory() {
        return JsonFactory.builder().recyclerPool(JsonRecyclerPools.newConcurrentDequePool()).build();
    }

    /** Compact JSON text of a tree (what {@code toString()} gives, through the pooled factory). */
    public static String write(JsonNode n) {
        try {
            return JSON.writeValueAsString(n);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
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
        requireStorableText(n);
        return (ObjectNode) n;
    }

    /**
     * Refuses any string in the tree (value or field name) that PostgreSQL text and jsonb cannot hold: U+0000
     * (rejected by the server, which used to surface as a database failure) or an unpaired UTF-16 surrogate (no
     * character at all; the driver silently stored it as '?'). Checked once for the whole body, before any field
     * is read, so every endpoint and every signaling message gets the same 400 {@code invalid_field} naming the
     * field ({@code a.b[0].c}; for a bad field name, the object holding it).
     */
    public static void requireStorableText(JsonNode n) {
        String bad = unstorable(n, "");
        if (bad != null) {
            String field = bad.isEmpty() ? "body" : bad;
            throw ApiException.badRequest("invalid_field", "field '" + field
                    + "' must not contain U+0000 (NUL) or unpaired UTF-16 surrogates").with("field", field);
        }
    }

    /** Path of the first unstorable string below {@code n} ({@code path} is n's), or null when there is none. */
    private static String unstorable(JsonNode n, String path) {
        if (n.isTextual()) {
            return storable(n.textValue()) ? null : path;
        }
        if (n.isObject()) {
            for (var it = n.fields(); it.hasNext(); ) {
                var e = it.next();
                if (!storable(e.getKey())) {
                    return path;
                }
                String bad = unstorable(e.getValue(), path.isEmpty() ? e.getKey() : path + "." + e.getKey());
                if (bad != null) {
                    return bad;
                }
            }
        } else if (n.isArray()) {
            for (int i = 0; i < n.size(); i++) {
                String bad = unstorable(n.get(i), path + "[" + i + "]");
                if (bad != null) {
                    return bad;
                }
            }
        }
        return null;
    }

    /** No U+0000 and every surrogate in a high-low pair. */
    static boolean storable(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (c == 0) {
                return false;
            }
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return false;
                }
            }
        }
        return true;
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

    /**
     * SHA-256 of the canonical (key-sorted) JSON: same request = same hash regardless of key order. The tree is
     * written straight into the digest with object keys sorted; the bytes are those of the earlier
     * {@link #canonicalBytes} (tree → maps → JSON with sorted map entries), so hashes stored in idempotency
     * records stay valid, without building the intermediate maps and byte array per request.
     */
    public static String hash(JsonNode n) {
        MessageDigest md = sha256();
        try (JsonGenerator g = CANONICAL.getFactory().createGenerator(new DigestSink(md))) {
            writeSorted(g, n);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
        return HexFormat.of().formatHex(md.digest());
    }

    /** The canonical bytes as they were first defined (kept to check {@link #hash(JsonNode)} against). */
    static byte[] canonicalBytes(JsonNode n) throws com.fasterxml.jackson.core.JsonProcessingException {
        return CANONICAL.writeValueAsBytes(CANONICAL.treeToValue(n, Object.class));
    }

    private static void writeSorted(JsonGenerator g, JsonNode n) throws java.io.IOException {
        if (n.isObject()) {
            List<String> names = new ArrayList<>(n.size());
            n.fieldNames().forEachRemaining(names::add);
            Collections.sort(names);
            g.writeStartObject();
            for (String name : names) {
                g.writeFieldName(name);
                writeSorted(g, n.get(name));
            }
            g.writeEndObject();
        } else if (n.isArray()) {
            g.writeStartArray();
            for (JsonNode e : n) {
                writeSorted(g, e);
            }
            g.writeEndArray();
        } else {
            CANONICAL.writeTree(g, n);
        }
    }

    private static final MessageDigest SHA256 = newSha256();

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A fresh SHA-256 (a clone skips the provider lookup of {@code getInstance}). */
    private static MessageDigest sha256() {
        try {
            return (MessageDigest) SHA256.clone();
        } catch (CloneNotSupportedException e) {
            return newSha256();
        }
    }

    /** Feeds written bytes to a digest. */
    private static final class DigestSink extends java.io.OutputStream {
        private final MessageDigest md;

        DigestSink(MessageDigest md) {
            this.md = md;
        }

        @Override
        public void write(int b) {
            md.update((byte) b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            md.update(b, off, len);
        }
    }

    public static String hash(String s) {
        return HexFormat.of().formatHex(sha256().digest(s.getBytes(StandardCharsets.UTF_8)));
    }

    public static ObjectNode obj() {
        return JSON.createObjectNode();
    }
}
