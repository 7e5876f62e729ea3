package dev.parley.charts;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.LintResult;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `helm lint --strict` of charts/parley: passes as committed, and fails for a broken template or bad values. */
class ChartLintTest {
    @Test
    void strictLintPasses() {
        LintResult r = HelmChart.lintStrict(HelmChart.CHART);
        assertThat(r.isFailed()).as("helm lint --strict: %s", r.getMessages()).isFalse();
        // only the icon hint (INFO) may remain: no WARNING, no ERROR
        assertThat(r.getMessages()).allMatch(m -> m.startsWith("[INFO]"), "INFO only");
    }

    @Test
    void strictLintFailsOnABrokenTemplate(@TempDir Path dir) throws Exception {
        Path copy = HelmChart.copyTo(dir);
        Path operator = copy.resolve("templates/operator.yaml");
        Files.writeString(operator, Files.readString(operator).replace("{{ $op.replicas }}", "{{ $op.replicas "));
        LintResult r = HelmChart.lintStrict(copy);
        assertThat(r.isFailed()).isTrue();
        assertThat(String.join("\n", r.getMessages())).contains("templates/operator.yaml").contains("[ERROR]");
    }

    @Test
    void strictLintFailsWhenValuesBreakTheSchema(@TempDir Path dir) throws Exception {
        Path copy = HelmChart.copyTo(dir);
        Path values = copy.resolve("values.yaml");
        Files.writeString(values, Files.readString(values).replace("    http: 8080 ", "    http: \"8080\" "));
        LintResult r = HelmChart.lintStrict(copy);
        assertThat(r.isFailed()).isTrue();
        assertThat(String.join("\n", r.getMessages()))
                .contains("values don't meet the specifications of the schema")
                .contains("controller.ports.http: Invalid type. Expected: integer, given: string");
    }
}
