package dev.parley.kubectl.output;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.PrintWriter;

/**
 * Writes a command's document as JSON or YAML. Every document starts with {@code apiVersion} and {@code kind}
 * (like kubectl's own output) so scripts can check what they got; absent values are written as null, never
 * left out, so every documented key is always there.
 */
public final class Documents {
    /** The version of the documented output shapes (docs/kubectl-parley.md); a breaking change bumps it. */
    public static final String API_VERSION = "kubectl.parley.dev/v1";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)).enable(SerializationFeature.INDENT_OUTPUT);

    private Documents() {
    }

    public static void write(PrintWriter out, OutputFormat format, Object document) {
        try {
            ObjectMapper m = format == OutputFormat.YAML ? YAML : JSON;
            out.println(m.writeValueAsString(document).stripTrailing());
            out.flush();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the " + format + " document", e);
        }
    }
}
