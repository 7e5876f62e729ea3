package dev.parley.controller.e2ee;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * One {@code e2ee_keys} message: a sender's new media key wrapped once per recipient (docs/e2ee.md "Messages").
 * Parsing checks only the shape: recipients are distinct participant ids, each envelope is a 12-byte IV and a
 * ciphertext of the size a wrapped key has. Anything else is a {@link Refusal} ({@code malformed}).
 */
record KeyBatch(long controllerEpoch, long seq, long keyGeneration, List<Envelope> envelopes) {
    /** A wrapped key is 28 bytes of plaintext plus the 16-byte tag; a little room for a future format. */
    static final int MIN_CIPHERTEXT = 16 + 16;
    static final int MAX_CIPHERTEXT = 256;
    static final int MAX_ENVELOPES = 10_000;

    record Envelope(UUID to, String iv, String ciphertext) {
    }

    static KeyBatch parse(ObjectNode msg) {
        long epoch = positive(msg, "controller_epoch");
        long seq = positive(msg, "seq");
        long generation = positive(msg, "key_generation");
        JsonNode list = msg.get("envelopes");
        if (list == null || !list.isArray() || list.isEmpty() || list.size() > MAX_ENVELOPES) {
            throw malformed("'envelopes' must be a non-empty array of at most " + MAX_ENVELOPES);
        }
        List<Envelope> out = new ArrayList<>(list.size());
        Set<UUID> seen = new HashSet<>();
        for (JsonNode e : list) {
            if (!e.isObject() || e.size() != 3) {
                throw malformed("each envelope is {to, iv, ciphertext}");
            }
            UUID to;
            try {
                to = UUID.fromString(e.path("to").asText(""));
            } catch (IllegalArgumentException x) {
                throw malformed("envelope 'to' must be a participant id");
            }
            if (!seen.add(to)) {
                throw malformed("one envelope per recipient");
            }
            String iv = e.path("iv").asText(null);
            String ct = e.path("ciphertext").asText(null);
            if (!e.path("iv").isTextual() || Base64Url.decodedLength(iv) != 12) {
                throw malformed("envelope 'iv' must be 12 bytes, base64url");
            }
            int n = e.path("ciphertext").isTextual() ? Base64Url.decodedLength(ct) : -1;
            if (n < MIN_CIPHERTEXT || n > MAX_CIPHERTEXT) {
                throw malformed("envelope 'ciphertext' must be " + MIN_CIPHERTEXT + ".." + MAX_CIPHERTEXT + " bytes, base64url");
            }
            out.add(new Envelope(to, iv, ct));
        }
        return new KeyBatch(epoch, seq, generation, out);
    }

    private static long positive(ObjectNode msg, String field) {
        JsonNode n = msg.get(field);
        if (n == null || !n.canConvertToExactIntegral() || !n.canConvertToLong() || n.asLong() < 1) {
            throw malformed("'" + field + "' must be a positive integer");
        }
        return n.asLong();
    }

    private static Refusal malformed(String detail) {
        return new Refusal("malformed", detail);
    }
}
