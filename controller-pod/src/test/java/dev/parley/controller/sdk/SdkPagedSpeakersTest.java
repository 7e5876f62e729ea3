package dev.parley.controller.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The SDK in a paged roster: active speakers off the page are watched and fetched (speakers-paged.test.mjs, node --test). */
class SdkPagedSpeakersTest {

    @Test
    void activeSpeakersOffThePageAreWatchedAndFetched() throws Exception {
        Path test = Path.of("src/test/resources/sdk/speakers-paged.test.mjs").toAbsolutePath();
        NodeTool.Run run = NodeTool.run(test.getParent(), Map.of("PARLEY_SDK_DIR", NodeTool.SDK.toString()), 120,
                "node", "--test", test.toString());
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).contains("# fail 0").doesNotContain("# pass 0");
    }
}
