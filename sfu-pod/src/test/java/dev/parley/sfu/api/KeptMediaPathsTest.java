package dev.parley.sfu.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The test-only keep-after-removal hook keeps only what a test marked (E2eeBrowserIT runs it on a real SFU). */
class KeptMediaPathsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void anUnmarkedRemovalGoesAheadAndABadBodyIsA400() throws Exception {
        try (KeptMediaPaths kept = new KeptMediaPaths()) {
            // no router is touched for a participant nobody marked: the removal proceeds as usual
            assertThat(kept.keepsOnRemoval(null, "m1", "p1", 1)).isFalse();
            kept.mark(JSON.readTree("{\"meeting_id\":\"m1\",\"participant_id\":\"p2\"}"));
            assertThat(kept.keepsOnRemoval(null, "m1", "p1", 1)).as("another participant").isFalse();
            assertThat(kept.keepsOnRemoval(null, "m2", "p2", 1)).as("another meeting").isFalse();
            assertThatThrownBy(() -> kept.mark(JSON.readTree("{\"meeting_id\":\"m1\"}")))
                    .isInstanceOf(JsonFields.Invalid.class).hasMessageContaining("participant_id");
            assertThatThrownBy(() -> kept.mark(JSON.readTree("[]"))).isInstanceOf(JsonFields.Invalid.class);
        }
    }
}
