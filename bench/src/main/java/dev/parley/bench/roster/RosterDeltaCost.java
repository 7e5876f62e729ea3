package dev.parley.bench.roster;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Locale;
import java.util.UUID;

/**
 * What a {@code roster_delta} of 1,000 participants costs in JSON (issue 18: measure before choosing a binary
 * frame): encoding it with Jackson's streaming generator (the shape of controller-pod's
 * {@code coalesce.RosterDeltaJson}, written out here because bench does not depend on the controller's shaded
 * jar), encoding the same as a tree (how the signaling socket writes its other messages) and decoding it. Prints
 * bytes and microseconds per delta (median of 15 rounds after warm-up).
 * <p>
 * {@code java -cp bench/target/bench.jar:bench/target/lib/* dev.parley.bench.roster.RosterDeltaCost [participants]}
 */
public final class RosterDeltaCost {
    private static final JsonFactory FACTORY = new JsonFactory();
    private static final ObjectMapper JSON = new ObjectMapper();

    private RosterDeltaCost() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        String[] ids = new String[n];
        for (int i = 0; i < n; i++) {
            ids[i] = UUID.randomUUID().toString();
        }
        byte[] streamed = streaming(ids);
        System.out.printf(Locale.ROOT, "roster_delta of %d participants (join storm: every entry a patch): %d bytes%n",
                n, streamed.length);
        double enc = median(() -> streaming(ids).length);
        double tree = median(() -> tree(ids).length());
        String text = new String(streamed, java.nio.charset.StandardCharsets.UTF_8);
        double dec = median(() -> JSON.readTree(text).path("changes").size());
        System.out.printf(Locale.ROOT, "encode, streaming generator: %8.1f µs per delta (%.0f ns per participant)%n", enc, enc * 1000 / n);
        System.out.printf(Locale.ROOT, "encode, ObjectNode tree:     %8.1f µs per delta (%.0f ns per participant)%n", tree, tree * 1000 / n);
        System.out.printf(Locale.ROOT, "decode, readTree:            %8.1f µs per delta (%.0f ns per participant)%n", dec, dec * 1000 / n);
    }

    interface Work {
        int run() throws Exception;
    }

    /** Median time of one call in µs: 2,000 warm-up calls, then 15 rounds of 200. */
    private static double median(Work w) throws Exception {
        long sink = 0;
        for (int i = 0; i < 2000; i++) {
            sink += w.run();
        }
        double[] rounds = new double[15];
        for (int r = 0; r < rounds.length; r++) {
            long t = System.nanoTime();
            for (int i = 0; i < 200; i++) {
                sink += w.run();
            }
            rounds[r] = (System.nanoTime() - t) / 200.0 / 1000.0;
        }
        java.util.Arrays.sort(rounds);
        if (sink == 42) {
            System.out.println(); // keeps the work observable
        }
        return rounds[rounds.length / 2];
    }

    static byte[] streaming(String[] ids) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + ids.length * 96);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("type", "roster_delta");
            g.writeArrayFieldStart("changes");
            for (int i = 0; i < ids.length; i++) {
                g.writeStartObject();
                g.writeStringField("participant_id", ids[i]);
                g.writeStringField("op", "patch");
                g.writeObjectFieldStart("fields");
                g.writeStringField("admission_state", "admitted");
                g.writeStringField("display_name", "Guest " + i);
                g.writeStringField("role", "attendee");
                g.writeEndObject();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        return out.toByteArray();
    }

    static String tree(String[] ids) {
        ObjectNode root = JSON.createObjectNode();
        root.put("type", "roster_delta");
        ArrayNode changes = root.putArray("changes");
        for (int i = 0; i < ids.length; i++) {
            ObjectNode c = changes.addObject();
            c.put("participant_id", ids[i]);
            c.put("op", "patch");
            ObjectNode f = c.putObject("fields");
            f.put("admission_state", "admitted");
            f.put("display_name", "Guest " + i);
            f.put("role", "attendee");
        }
        return root.toString();
    }
}
