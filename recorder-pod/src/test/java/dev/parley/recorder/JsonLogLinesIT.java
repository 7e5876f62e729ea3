package dev.parley.recorder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.testsupport.process.PodStdout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The recorder process's stdout, with its own logback.xml: a refused configuration is one JSON ERROR line with the
 * pod's name and the job's meeting_id, recording_job_id and generation (issue #21), and the S3 secret key is in none
 * of its lines.
 */
class JsonLogLinesIT {
    private static final String S3_SECRET = "recorder-s3-secret-for-the-log-test";
    private static final String MEETING = "5b0c7f0e-3f55-4c1e-9f1a-6a4b2f0d9c11";

    @Test
    void aBadConfigurationIsOneJsonErrorLine(@TempDir Path dir) throws Exception {
        Map<String, String> env = Map.of(
                "PARLEY_POD_NAME", "recorder-logs-5",
                "PARLEY_MEETING_ID", MEETING,
                "PARLEY_RECORDING_JOB_ID", "job-1",
                "PARLEY_RECORDING_GENERATION", "1",
                "PARLEY_S3_ENDPOINT", "http://127.0.0.1:9",
                "PARLEY_S3_BUCKET", "recordings",
                "PARLEY_S3_ACCESS_KEY", "access",
                "PARLEY_S3_SECRET_KEY", S3_SECRET,
                "PARLEY_S3_PREFIX", "tenant/../escape",
                "PARLEY_LOG_FORMAT", "json");
        List<String> lines = PodStdout.run("dev.parley.recorder.Main", env, l -> l.contains("bad configuration"),
                Duration.ofSeconds(60), dir);

        assertThat(lines).as("stdout").isNotEmpty();
        ObjectMapper json = new ObjectMapper();
        boolean refused = false;
        for (String line : lines) {
            JsonNode n = json.readTree(line);
            assertThat(n.isObject()).as(line).isTrue();
            assertThat(n.path("pod").asText()).as(line).isEqualTo("recorder-logs-5");
            assertThat(n.path("meeting_id").asText()).as(line).isEqualTo(MEETING);
            assertThat(n.path("recording_job_id").asText()).as(line).isEqualTo("job-1");
            assertThat(n.path("generation").asText()).as(line).isEqualTo("1");
            assertThat(line).doesNotContain(S3_SECRET);
            refused |= n.path("level").asText().equals("ERROR") && n.path("message").asText().startsWith("bad configuration");
        }
        assertThat(refused).as("an ERROR line 'bad configuration' in %s", lines).isTrue();
    }
}
