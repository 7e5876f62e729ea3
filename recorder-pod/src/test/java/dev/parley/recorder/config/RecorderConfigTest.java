package dev.parley.recorder.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecorderConfigTest {
    static Map<String, String> minimal() {
        Map<String, String> env = new HashMap<>();
        env.put("PARLEY_RECORDING_JOB_ID", "job-1");
        env.put("PARLEY_RECORDING_GENERATION", "3");
        env.put("PARLEY_S3_BUCKET", "rec");
        env.put("PARLEY_S3_SECRET_KEY", "very-secret-value");
        env.put("PARLEY_INTERNAL_SECRET", "internal-secret-value");
        return env;
    }

    @Test
    void defaultsFollowTheDocs() {
        RecorderConfig c = RecorderConfig.fromEnv(minimal());
        assertThat(c.generation()).isEqualTo(3);
        assertThat(c.segmentSeconds()).isEqualTo(10);
        assertThat(c.leaseTtlSeconds()).isEqualTo(5);
        assertThat(c.bindAddress()).isEqualTo("127.0.0.1");
        assertThat(c.etcdEndpoints()).containsExactly("http://127.0.0.1:2379");
        assertThat(c.tileWidth()).isEqualTo(640);
    }

    @Test
    void describeNeverContainsSecrets() {
        String d = RecorderConfig.fromEnv(minimal()).describe();
        assertThat(d).doesNotContain("very-secret-value").doesNotContain("internal-secret-value").contains("set");
    }

    @Test
    void badInputIsAClearError() {
        Map<String, String> env = minimal();
        env.put("PARLEY_RECORDING_GENERATION", "0");
        assertThatThrownBy(() -> RecorderConfig.fromEnv(env)).hasMessageContaining("GENERATION");
        env.put("PARLEY_RECORDING_GENERATION", "1");
        env.put("PARLEY_RECORDING_JOB_ID", "../etc");
        assertThatThrownBy(() -> RecorderConfig.fromEnv(env)).hasMessageContaining("JOB_ID");
        env.remove("PARLEY_RECORDING_JOB_ID");
        assertThatThrownBy(() -> RecorderConfig.fromEnv(env)).hasMessageContaining("is required");
    }

    @Test
    void anUnsafeS3PrefixIsAClearStartupError() {
        Map<String, String> env = minimal();
        for (String bad : new String[] {"tenant-a/../tenant-b", "..", "tenant-a/./x", "tenant\n-a", "a\u0000b",
                "x".repeat(513)}) {
            env.put("PARLEY_S3_PREFIX", bad);
            assertThatThrownBy(() -> RecorderConfig.fromEnv(env)).as(bad.length() > 20 ? "long prefix" : bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("PARLEY_S3_PREFIX ");
        }
    }

    @Test
    void theS3PrefixIsNormalised() {
        Map<String, String> env = minimal();
        assertThat(RecorderConfig.fromEnv(env).objectKeys().prefix()).isEmpty();
        for (String same : new String[] {"tenant-a/2026", "tenant-a/2026/", "/tenant-a/2026", "//tenant-a//2026//"}) {
            env.put("PARLEY_S3_PREFIX", same);
            RecorderConfig c = RecorderConfig.fromEnv(env);
            assertThat(c.objectKeys().prefix()).as(same).isEqualTo("tenant-a/2026/");
            assertThat(c.objectKeys().manifest("job-1", 3)).isEqualTo("tenant-a/2026/job-1/manifest/00000000000000000003.json");
            assertThat(c.describe()).contains("prefix=tenant-a/2026/");
        }
        for (String none : new String[] {"", "/", "///", "  "}) {
            env.put("PARLEY_S3_PREFIX", none);
            assertThat(RecorderConfig.fromEnv(env).objectKeys().prefix()).as("'" + none + "'").isEmpty();
        }
    }
}
