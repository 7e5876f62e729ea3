package dev.parley.controller.coalesce;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The wire form of a paged socket's {@code roster_summary}:
 * {@code {"type":"roster_summary"[,"after":"E.S","cursor":"E.S"],"count":N,"waiting":W,"by_role":{..}[,"changes":[..]]}}.
 * With {@code after}/{@code cursor} it stands for the events in that range, like a {@code roster_delta}; its
 * {@code changes} are only those of the participants the socket watches. Without them (the answer to a
 * {@code roster_page}) it is counts only and moves no cursor.
 */
public final class RosterSummaryJson {
    private static final JsonFactory FACTORY = new JsonFactory();

    private RosterSummaryJson() {
    }

    public static String encode(String after, String cursor, RosterTally.Counts counts, Map<String, RosterChange> changes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(128 + changes.size() * 96);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("type", "roster_summary");
            if (after != null) {
                g.writeStringField("after", after);
                g.writeStringField("cursor", cursor);
            }
            g.writeNumberField("count", counts.count());
            g.writeNumberField("waiting", counts.waiting());
            g.writeObjectFieldStart("by_role");
            for (Map.Entry<String, Integer> e : new java.util.TreeMap<>(counts.byRole()).entrySet()) {
                g.writeNumberField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            if (!changes.isEmpty()) {
                RosterDeltaJson.writeChanges(g, changes);
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
