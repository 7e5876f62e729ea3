package dev.parley.controller.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.logging.ParleyLogEncoder;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Every log line of this JVM (the controllers under test run in it) while open, written by the pods' own encoder in
 * JSON format, as the raw text and as parsed objects; {@code dev.parley} logs at DEBUG meanwhile, so a secret in a
 * debug line is caught too.
 */
public final class JsonLogCapture implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final Logger parley = (Logger) LoggerFactory.getLogger("dev.parley");
    private final Level parleyLevel = parley.getLevel();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();

    public JsonLogCapture() {
        ParleyLogEncoder encoder = new ParleyLogEncoder();
        encoder.setContext(root.getLoggerContext());
        encoder.setFormat("json");
        encoder.start();
        appender.setContext(root.getLoggerContext());
        appender.setEncoder(encoder);
        appender.setImmediateFlush(true);
        appender.setOutputStream(bytes);
        appender.start();
        root.addAppender(appender);
        parley.setLevel(Level.DEBUG);
    }

    /** The text exactly as a log collector would read it. */
    public String text() {
        synchronized (bytes) {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }

    /** Each line parsed as one JSON object; fails (with the line) on any line that is not one. */
    public List<JsonNode> lines() {
        List<JsonNode> out = new ArrayList<>();
        for (String line : text().split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            try {
                JsonNode n = JSON.readTree(line);
                if (n == null || !n.isObject()) {
                    throw new AssertionError("log line is not a JSON object: " + line);
                }
                out.add(n);
            } catch (IOException e) {
                throw new UncheckedIOException("log line is not JSON: " + line, e);
            }
        }
        return out;
    }

    @Override
    public void close() {
        parley.setLevel(parleyLevel);
        root.detachAppender(appender);
        appender.stop();
    }
}
