package dev.parley.controller.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The SDK keeps membership events heard while a snapshot or roster read is in flight (resync-race.test.mjs, node --test). */
class SdkResyncRaceTest {

    @Test
    void membershipEventsHeardDuringAReadSurviveItsOlderAnswer() throws Exception {
        Path test = Path.of("src/test/resources/sdk/resync-race.test.mjs").toAbsolutePath();
        NodeTool.Run run = NodeTool.run(test.getParent(), Map.of("PARLEY_SDK_DIR", NodeTool.SDK.toString()), 120,
                "node", "--test", test.toString());
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).contains("# fail 0").doesNotContain("# pass 0");
    }
}
