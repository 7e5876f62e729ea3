package dev.parley.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * One log event as one JSON object on one line. MDC entries are top-level fields (so a log store can index
 * {@code meeting_id} without knowing about logback); {@code pod} comes from the MDC when a request set it (a JVM
 * may run several controllers in tests), else from the process's pod name.
 */
final class JsonLine {
    /** Fields the encoder writes itself; an MDC key with one of these names would make a duplicate key. */
    static final Set<String> RESERVED = Set.of("@timestamp", "level", "logger", "thread", "message", "stack_trace");

    private static final JsonFactory JSON = new JsonFactory();

    private JsonLine() {
    }

    static byte[] encode(ILoggingEvent e, String pod) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("@timestamp", Instant.ofEpochMilli(e.getTimeStamp()).toString());
            g.writeStringField("level", e.getLevel().toString());
            g.writeStringField("logger", e.getLoggerName());
            g.writeStringField("thread", e.getThreadName());
            g.writeStringField("message", e.getFormattedMessage());
            Map<String, String> mdc = e.getMDCPropertyMap();
            if (!pod.isEmpty() && (mdc == null || !mdc.containsKey("pod"))) {
                g.writeStringField("pod", pod);
            }
            if (mdc != null) {
                for (Map.Entry<String, String> m : mdc.entrySet()) {
                    if (m.getKey() != null && m.getValue() != null && !RESERVED.contains(m.getKey())) {
                        g.writeStringField(m.getKey(), m.getValue());
                    }
                }
            }
            if (e.getThrowableProxy() != null) {
                g.writeStringField("stack_trace", ThrowableProxyUtil.asString(e.getThrowableProxy()));
            }
            g.writeEndObject();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex); // a ByteArrayOutputStream does not fail
        }
        out.write('\n'); // Jackson escapes newlines inside strings, so this is the only one
        return out.toByteArray();
    }
}
