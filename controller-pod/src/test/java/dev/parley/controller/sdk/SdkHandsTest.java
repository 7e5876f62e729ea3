package dev.parley.controller.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The large-meeting state of hands.js, state.js and events.js, run by node's test runner (hands.test.mjs). */
class SdkHandsTest {

    @Test
    void raiseHandQueueAndPolicyFoldIntoState() throws Exception {
        Path test = Path.of("src/test/resources/sdk/hands.test.mjs").toAbsolutePath();
        NodeTool.Run run = NodeTool.run(test.getParent(), Map.of("PARLEY_SDK_DIR", NodeTool.SDK.toString()), 120,
                "node", "--test", test.toString());
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).contains("# fail 0").doesNotContain("# pass 0");
    }
}
