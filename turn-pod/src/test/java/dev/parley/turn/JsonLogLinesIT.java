package dev.parley.turn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.testsupport.net.FreePorts;
import dev.parley.testsupport.process.PodStdout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The TURN process's stdout, with its own logback.xml: one JSON object per line, each with the pod's name, and
 * neither the TURN shared secret nor the internal secret in any of them (start-up logs the configuration).
 */
class JsonLogLinesIT {
    private static final String TURN_SECRET = "turn-shared-secret-for-the-log-test";
    private static final String INTERNAL_SECRET = "turn-internal-secret-for-the-log-test";

    @Test
    void stdoutIsOneJsonObjectPerLine(@TempDir Path dir) throws Exception {
        Map<String, String> env = Map.of(
                "PARLEY_POD_NAME", "turn-logs-3",
                "PARLEY_BIND_ADDRESS", "127.0.0.1",
                "PARLEY_TURN_PORT", Integer.toString(FreePorts.tcpAndUdp()),
                "PARLEY_TURN_TLS_PORT", "0",
                "PARLEY_INTERNAL_PORT", Integer.toString(FreePorts.tcp()),
                "PARLEY_TURN_SECRETS", TURN_SECRET,
                "PARLEY_INTERNAL_SECRET", INTERNAL_SECRET,
                "PARLEY_TURN_DRAIN_GRACE_SECONDS", "1",
                "PARLEY_LOG_FORMAT", "json",
                "PARLEY_LOG_LEVELS", "dev.parley=debug");
        List<String> lines = PodStdout.run("dev.parley.turn.Main", env, l -> l.contains("TURN listening"),
                Duration.ofSeconds(90), dir);

        assertThat(lines).as("stdout").anyMatch(l -> l.contains("TURN listening"));
        ObjectMapper json = new ObjectMapper();
        for (String line : lines) {
            JsonNode n = json.readTree(line);
            assertThat(n.isObject()).as(line).isTrue();
            assertThat(n.path("pod").asText()).as(line).isEqualTo("turn-logs-3");
            assertThat(n.path("level").asText()).as(line).isIn("TRACE", "DEBUG", "INFO", "WARN", "ERROR");
            assertThat(n.path("message").isTextual()).as(line).isTrue();
            assertThat(line).doesNotContain(TURN_SECRET).doesNotContain(INTERNAL_SECRET);
        }
    }
}
