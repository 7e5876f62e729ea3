package dev.parley.controller.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The web app's grid geometry, paging and speaker promotion (app/layout.js), run by node's test runner (layout.test.mjs). */
class AppLayoutTest {

    @Test
    void layoutModuleBehaves() throws Exception {
        Path test = Path.of("src/test/resources/app/layout.test.mjs").toAbsolutePath();
        Path app = NodeTool.SDK.getParent().resolve("app");
        NodeTool.Run run = NodeTool.run(test.getParent(), Map.of("PARLEY_APP_DIR", app.toString()), 120,
                "node", "--test", test.toString());
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).contains("# fail 0").doesNotContain("# pass 0");
    }
}
