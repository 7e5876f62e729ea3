package dev.parley.kubectl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.operator.crd.ParleyApi;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documented exit codes (0 ok, 1 error, 2 usage, 3 not found, 4 unreachable, 5 timed out; 5 is in
 * DrainFormatsTest), errors on stderr with nothing on stdout, and every command's --help.
 */
class ExitCodesAndHelpTest {
    static MockCluster k8s;
    @TempDir
    static Path tmp;

    @BeforeAll
    static void start() throws Exception {
        k8s = new MockCluster(tmp, Eu2Fixture.NS);
        Eu2Fixture.create(k8s.client);
    }

    @AfterAll
    static void stop() {
        k8s.close();
    }

    @Test
    void okIsZero() {
        assertThat(k8s.run("status").code()).isZero();
        assertThat(k8s.run("drain", "eu2-sfu-aaaaa", "--dry-run").code()).isZero();
    }

    @Test
    void notAParleyPodIsAnErrorOnStderr() {
        MockCluster.Result r = k8s.run("drain", "web", "-o", "json");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo("error: web is not a Parley SFU or TURN pod (label parley.dev/component)\n");
    }

    @Test
    void missingPodIsNotFound() {
        for (String[] args : new String[][] {{"drain", "nope"}, {"drain", "nope", "--dry-run", "-o", "yaml"}}) {
            MockCluster.Result r = k8s.run(args);
            assertThat(r.code()).isEqualTo(3);
            assertThat(r.out()).isEmpty();
            assertThat(r.err()).isEqualTo("error: pod ops/nope not found\n");
        }
    }

    @Test
    void usageErrorsAreTwoAndNameTheProblem() {
        assertThat(k8s.run("status", "-o", "xml")).satisfies(r -> {
            assertThat(r.code()).isEqualTo(2);
            assertThat(r.out()).isEmpty();
            assertThat(r.err()).contains("-o must be wide, json or yaml (got 'xml')");
        });
        assertThat(k8s.run("drain", "eu2-sfu-aaaaa", "--dry-run=maybe")).satisfies(r -> {
            assertThat(r.code()).isEqualTo(2);
            assertThat(r.err()).contains("--dry-run must be none, client or server (got 'maybe')");
        });
        assertThat(k8s.run("drain", "eu2-sfu-aaaaa", "--timeout", "soon")).satisfies(r -> {
            assertThat(r.code()).isEqualTo(2);
            assertThat(r.err()).contains("'soon' is not a duration");
        });
        assertThat(k8s.run("drain", "eu2-sfu-aaaaa", "--timeout", "0s").code()).isEqualTo(2);
        assertThat(k8s.run("drain").code()).isEqualTo(2);
        assertThat(k8s.run("status", "--frobnicate").code()).isEqualTo(2);
        assertThat(MockCluster.runRaw("inspect", "meeting").code()).isEqualTo(2);
        assertThat(MockCluster.runRaw("nonsense").code()).isEqualTo(2);
        // nothing was written by the refused drains
        var annotations = k8s.client.pods().inNamespace("ops").withName("eu2-sfu-aaaaa").get().getMetadata().getAnnotations();
        assertThat(annotations == null ? java.util.Map.of() : annotations).doesNotContainKey(ParleyApi.ANNOTATION_DRAIN_REQUESTED);
    }

    @Test
    void unreachableApiServerIsFour() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path cfg = tmp.resolve("closed-kubeconfig");
        Files.writeString(cfg, MockCluster.kubeconfig("http://127.0.0.1:" + port, "ops"));
        for (String cmd : new String[] {"status", "drain"}) {
            MockCluster.Result r = cmd.equals("status") ? MockCluster.runRaw("status", "--kubeconfig", cfg.toString())
                    : MockCluster.runRaw("drain", "eu2-sfu-aaaaa", "--kubeconfig", cfg.toString());
            assertThat(r.code()).as(r.err()).isEqualTo(4);
            assertThat(r.out()).isEmpty();
            assertThat(r.err()).startsWith("error: cannot reach the Kubernetes API server").doesNotContain("\tat ");
        }
    }

    @Test
    void unreadableKubeconfigIsAnError() {
        MockCluster.Result r = MockCluster.runRaw("status", "--kubeconfig", tmp.resolve("missing").toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).startsWith("error: cannot read kubeconfig");
    }

    @Test
    void everyCommandHasHelpWithItsFlagsAndTheExitCodes() {
        for (String[] args : new String[][] {{"--help"}, {"status", "--help"}, {"drain", "--help"}, {"inspect", "--help"},
                {"inspect", "meeting", "--help"}}) {
            MockCluster.Result r = MockCluster.runRaw(args);
            assertThat(r.code()).as(String.join(" ", args)).isZero();
            assertThat(r.out()).as(String.join(" ", args)).startsWith("Usage: kubectl-parley")
                    .contains("Exit codes:").contains(" 3   not found").contains(" 5   timed out");
        }
        assertThat(MockCluster.runRaw("status", "--help").out()).contains("-o, --output=FORMAT").contains("wide, json, yaml")
                .contains("-A, --all-namespaces").contains("Examples:");
        assertThat(MockCluster.runRaw("drain", "--help").out()).contains("-o, --output=FORMAT").contains("--dry-run")
                .contains("--wait-timeout=DURATION").contains("exit code 5").doesNotContain("--poll-interval");
        assertThat(MockCluster.runRaw("inspect", "meeting", "--help").out()).contains("-o, --output=FORMAT").contains("--etcd");
        assertThat(MockCluster.runRaw("--help").out()).contains("status").contains("drain").contains("inspect");
    }
}
