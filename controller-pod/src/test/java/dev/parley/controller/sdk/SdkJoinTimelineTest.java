package dev.parley.controller.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The join timeline of join-timeline.js (steps, order, first mark wins, the stats poll), run by node's test runner (join-timeline.test.mjs). */
class SdkJoinTimelineTest {

    @Test
    void joinTimelineModuleBehaves() throws Exception {
        Path test = Path.of("src/test/resources/sdk/join-timeline.test.mjs").toAbsolutePath();
        NodeTool.Run run = NodeTool.run(test.getParent(), Map.of("PARLEY_SDK_DIR", NodeTool.SDK.toString()), 120,
                "node", "--test", test.toString());
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).contains("# fail 0").doesNotContain("# pass 0");
    }
}
