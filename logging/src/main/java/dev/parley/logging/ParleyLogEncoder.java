package dev.parley.logging;

import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.EncoderBase;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The encoder every pod's logback.xml uses. {@code format} (from {@code PARLEY_LOG_FORMAT}) picks JSON lines
 * (the default, what a cluster's log collector wants) or {@code text} (a pattern with the MDC, for people reading
 * {@code ./parley logs}). An unknown format falls back to JSON with a warning in logback's status.
 */
public class ParleyLogEncoder extends EncoderBase<ILoggingEvent> {
    /** The text layout when logback.xml gives none: time, level, thread, logger, MDC (when set), message. */
    public static final String DEFAULT_PATTERN =
            "%d{HH:mm:ss.SSS} %-5level [%thread] %logger{30}%replace( [%mdc]){' \\[\\]', ''} - %msg%n";

    private String format = "json";
    private String pattern = DEFAULT_PATTERN;
    private String pod = PodIdentity.ofProcess();
    private PatternLayout text;

    public void setFormat(String format) {
        this.format = format == null ? "" : format.trim().toLowerCase(Locale.ROOT);
    }

    public void setPattern(String pattern) {
        this.pattern = pattern;
    }

    /** Overrides the pod name from the environment (tests; a logback.xml that knows better). */
    public void setPod(String pod) {
        this.pod = pod == null ? "" : pod.trim();
    }

    public boolean isJson() {
        return text == null;
    }

    @Override
    public void start() {
        if ("text".equals(format)) {
            text = new PatternLayout();
            text.setContext(getContext());
            text.setPattern(pattern);
            text.start();
        } else if (!format.isEmpty() && !"json".equals(format)) {
            addWarn("PARLEY_LOG_FORMAT=" + format + " is neither json nor text; writing json");
        }
        super.start();
    }

    @Override
    public void stop() {
        if (text != null) {
            text.stop();
        }
        super.stop();
    }

    @Override
    public byte[] headerBytes() {
        return null;
    }

    @Override
    public byte[] encode(ILoggingEvent event) {
        if (text != null) {
            return text.doLayout(event).getBytes(StandardCharsets.UTF_8);
        }
        return JsonLine.encode(event, pod);
    }

    @Override
    public byte[] footerBytes() {
        return null;
    }
}
