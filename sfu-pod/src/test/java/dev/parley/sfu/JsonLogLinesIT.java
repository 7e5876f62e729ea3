package dev.parley.sfu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.testsupport.net.FreePorts;
import dev.parley.testsupport.process.PodStdout;
import dev.parley.testsupport.process.StandaloneSfuEnv;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The SFU process's stdout, with its own logback.xml: one JSON object per line, each with the pod's name. */
class JsonLogLinesIT {
    private static final String SECRET = "sfu-internal-secret-for-the-log-test";

    @Test
    void stdoutIsOneJsonObjectPerLine(@TempDir Path dir) throws Exception {
        Map<String, String> env = new HashMap<>();
        StandaloneSfuEnv.apply(env, "sfu-logs-7", FreePorts.tcp(), SECRET, TicketKeys.generate().toPublicJWK().toJSONString());
        env.put("PARLEY_LOG_FORMAT", "json");
        env.put("PARLEY_LOG_LEVELS", "dev.parley=debug");
        List<String> lines = PodStdout.run("dev.parley.sfu.Main", env, l -> l.contains("SFU up"), Duration.ofSeconds(90), dir);

        assertThat(lines).as("stdout").anyMatch(l -> l.contains("SFU up"));
        ObjectMapper json = new ObjectMapper();
        for (String line : lines) {
            JsonNode n = json.readTree(line);
            assertThat(n.isObject()).as(line).isTrue();
            assertThat(n.path("pod").asText()).as(line).isEqualTo("sfu-logs-7");
            assertThat(n.path("level").asText()).as(line).isIn("TRACE", "DEBUG", "INFO", "WARN", "ERROR");
            assertThat(n.path("@timestamp").asText()).as(line).isNotEmpty();
            assertThat(n.path("logger").asText()).as(line).isNotEmpty();
            assertThat(line).doesNotContain(SECRET);
        }
    }
}
