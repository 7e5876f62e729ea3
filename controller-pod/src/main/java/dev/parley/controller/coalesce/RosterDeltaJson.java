package dev.parley.controller.coalesce;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The wire form of a merged delta, written once per meeting and window with Jackson's streaming generator (no
 * tree): {@code {"type":"roster_delta"[,"after":"E.S","cursor":"E.S"],"changes":[{"participant_id":..,"op":"patch|replace|remove",
 * "fields":{..}}]}}.
 */
public final class RosterDeltaJson {
    private static final JsonFactory FACTORY = new JsonFactory();

    private RosterDeltaJson() {
    }

    public static byte[] encode(Map<String, RosterChange> delta) {
        return encode(null, null, delta);
    }

    /**
     * With the control cursors it stands for: the delta replaces the events after {@code after} up to and
     * including {@code cursor} (a client at {@code after} applies it and is then at {@code cursor}).
     */
    public static byte[] encode(String after, String cursor, Map<String, RosterChange> delta) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + delta.size() * 96);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("type", "roster_delta");
            if (after != null) {
                g.writeStringField("after", after);
                g.writeStringField("cursor", cursor);
            }
            writeChanges(g, delta);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** {@code "changes":[…]} as a roster delta writes it (shared with {@link RosterSummaryJson}). */
    static void writeChanges(JsonGenerator g, Map<String, RosterChange> delta) throws IOException {
        g.writeArrayFieldStart("changes");
        for (Map.Entry<String, RosterChange> e : delta.entrySet()) {
            g.writeStartObject();
            g.writeStringField("participant_id", e.getKey());
            g.writeStringField("op", e.getValue().kind().name().toLowerCase(java.util.Locale.ROOT));
            if (!e.getValue().fields().isEmpty()) {
                g.writeObjectFieldStart("fields");
                for (Map.Entry<String, String> f : e.getValue().fields().entrySet()) {
                    g.writeStringField(f.getKey(), f.getValue());
                }
                g.writeEndObject();
            }
            g.writeEndObject();
        }
        g.writeEndArray();
    }
}
