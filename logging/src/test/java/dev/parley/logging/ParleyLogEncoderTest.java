package dev.parley.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ParleyLogEncoderTest {
    private final LoggerContext context = new LoggerContext();
    private final Logger logger = context.getLogger("dev.parley.sfu.routing.Router");

    private ParleyLogEncoder encoder(String format) {
        ParleyLogEncoder e = new ParleyLogEncoder();
        e.setContext(context);
        e.setFormat(format);
        e.setPod("sfu-7");
        e.start();
        return e;
    }

    private LoggingEvent event(String message, Throwable t, Map<String, String> mdc) {
        LoggingEvent e = new LoggingEvent(Logger.class.getName(), logger, Level.WARN, message, t, null);
        e.setMDCPropertyMap(mdc);
        return e;
    }

    @Test
    void jsonIsOneObjectPerLineWithMdcAtTopLevel() throws Exception {
        byte[] out = encoder("json").encode(event("two\nlines \"quoted\"", new IllegalStateException("boom"),
                Map.of("meeting_id", "m-1", "controller_epoch", "42", "message", "must not clash")));
        String line = new String(out, StandardCharsets.UTF_8);
        assertThat(line).endsWith("\n");
        assertThat(line.substring(0, line.length() - 1)).doesNotContain("\n");
        JsonNode j = new ObjectMapper().readTree(line);
        assertThat(j.get("level").asText()).isEqualTo("WARN");
        assertThat(j.get("logger").asText()).isEqualTo("dev.parley.sfu.routing.Router");
        assertThat(j.get("message").asText()).isEqualTo("two\nlines \"quoted\"");
        assertThat(j.get("pod").asText()).isEqualTo("sfu-7");
        assertThat(j.get("meeting_id").asText()).isEqualTo("m-1");
        assertThat(j.get("controller_epoch").asText()).isEqualTo("42");
        assertThat(j.get("stack_trace").asText()).contains("IllegalStateException: boom");
        assertThat(j.get("@timestamp").asText()).endsWith("Z");
    }

    @Test
    void podFromTheMdcWinsOverTheProcessName() throws Exception {
        String line = new String(encoder("json").encode(event("x", null, Map.of("pod", "controller-1"))), StandardCharsets.UTF_8);
        assertThat(new ObjectMapper().readTree(line).get("pod").asText()).isEqualTo("controller-1");
    }

    @Test
    void textShowsTheMdcOnlyWhenSet() {
        ParleyLogEncoder e = encoder("TEXT");
        assertThat(e.isJson()).isFalse();
        assertThat(new String(e.encode(event("hello", null, Map.of("meeting_id", "m-1"))), StandardCharsets.UTF_8))
                .contains("WARN").contains("[meeting_id=m-1]").endsWith("- hello" + System.lineSeparator());
        assertThat(new String(e.encode(event("hello", null, Map.of())), StandardCharsets.UTF_8))
                .doesNotContain("[]").contains("Router - hello");
    }

    @Test
    void unknownFormatFallsBackToJsonWithAWarning() {
        ParleyLogEncoder e = encoder("yaml");
        assertThat(e.isJson()).isTrue();
        assertThat(context.getStatusManager().getCopyOfStatusList())
                .anySatisfy(s -> assertThat(s.getMessage()).contains("neither json nor text"));
    }

    @Test
    void podNameComesFromTheEnvironmentInOrder() {
        assertThat(PodIdentity.resolve(Map.of("PARLEY_POD_NAME", "turn-2", "HOSTNAME", "h")::get)).isEqualTo("turn-2");
        assertThat(PodIdentity.resolve(Map.of("POD_NAME", "sfu-1", "HOSTNAME", "h")::get)).isEqualTo("sfu-1");
        assertThat(PodIdentity.resolve(Map.of("HOSTNAME", "h")::get)).isEqualTo("h");
        assertThat(PodIdentity.resolve(Map.<String, String>of()::get)).isEmpty();
    }
}
