package dev.parley.kubectl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.parley.operator.crd.SfuPool;
import dev.parley.operator.support.OperatorHarness;
import dev.parley.operator.support.Pools;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kubectl-parley against the real operator (mock API server, real etcd): drain --wait and inspect meeting. */
@org.junit.jupiter.api.TestMethodOrder(org.junit.jupiter.api.MethodOrderer.OrderAnnotation.class)
class DrainAndInspectWithOperatorIT {
    static OperatorHarness h;
    @TempDir
    static Path tmp;
    static Path kubeconfig;

    @BeforeAll
    static void start() throws Exception {
        h = new OperatorHarness();
        kubeconfig = tmp.resolve("kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters: [{name: mock, cluster: {server: "%s"}}]
                users: [{name: tester, user: {token: t}}]
                contexts: [{name: mock, context: {cluster: mock, user: tester, namespace: ops}}]
                current-context: mock
                """.formatted(h.client.getConfiguration().getMasterUrl().replace("localhost", "127.0.0.1")));
    }

    @AfterAll
    static void stop() throws Exception {
        h.close();
    }

    static String[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = KubectlParley.run(new PrintWriter(out), new PrintWriter(err), args);
        return new String[] {String.valueOf(code), out.toString(), err.toString()};
    }

    @Test
    @org.junit.jupiter.api.Order(1)
    void drainWaitFollowsThePhasesUntilTheBusyPodHasBeenEmptiedAndRemoved() throws Exception {
        SfuPool spec = Pools.sfuPool("ops", "pool", "r-ops", 2, 4);
        spec.getSpec().drain.timeoutSeconds = 600;
        spec.getSpec().drain.migrationSeconds = 300;
        h.client.resources(SfuPool.class).inNamespace("ops").resource(spec).create();
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> Pools.podNames(h.client, "ops", "sfu", "pool").size() == 2);
        List<String> pods = Pools.podNames(h.client, "ops", "sfu", "pool");
        for (String p : pods) {
            h.registry.sfu("r-ops", p, "ACTIVE", 0.4, 6);
        }
        String victim = pods.get(0);
        // the meeting owners move the participants away a couple of seconds after the drain reached phase 3
        // Own thread, not the common pool: with 2 cores the common pool has one worker, which the HTTP client needs.
        var ownersThread = java.util.concurrent.Executors.newSingleThreadExecutor();
        CompletableFuture<Void> owners = CompletableFuture.runAsync(() -> {
            try {
                await().atMost(Duration.ofSeconds(300)).ignoreExceptions().until(() -> "3-migrating".equals(h.client.pods().inNamespace("ops")
                        .withName(victim).get().getMetadata().getAnnotations().get("parley.dev/drain-phase")));
                Thread.sleep(2000);
                h.registry.sfu("r-ops", victim, "DRAINING", 0.0, 0);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, ownersThread);
        ownersThread.shutdown();
        String[] r = run("drain", victim, "--wait", "--wait-timeout", "300s", "--poll-interval", "200ms",
                "--kubeconfig", kubeconfig.toString());
        assertThat(r[0]).as(r[1] + r[2]).isEqualTo("0");
        owners.get(300, TimeUnit.SECONDS);
        assertThat(r[1]).contains("drain requested (manual)").contains("phase 3/5 migrating").contains("drained and removed after")
                .doesNotContain("4/5 grace");
        assertThat(h.client.pods().inNamespace("ops").withName(victim).get()).isNull();
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> assertThat(
                h.client.resources(SfuPool.class).inNamespace("ops").withName("pool").get().getStatus().recentDrains)
                .anyMatch(d -> d.pod.equals(victim) && d.reason.equals("manual") && d.outcome.equals("emptied")));
        // the pool got a replacement while the pod drained
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> Pools.podNames(h.client, "ops", "sfu", "pool").size() == 2);
    }

    @Test
    void inspectMeetingReadsOwnerAndEpochFromEtcd() throws Exception {
        long revision;
        try (Client c = h.etcd.client()) {
            revision = c.getKVClient().put(ByteSequence.from("/parley/v1/meetings/m-42/owner", StandardCharsets.UTF_8),
                    ByteSequence.from("{\"pod\":\"controller-7\"}", StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS)
                    .getHeader().getRevision();
        }
        String[] r = run("inspect", "meeting", "m-42", "--etcd", h.etcd.endpoint());
        assertThat(r[0]).as(r[2]).isEqualTo("0");
        assertThat(r[1]).contains("owner controller:  controller-7").contains("controller_epoch:  " + revision);
        String[] none = run("inspect", "meeting", "m-none", "--etcd", h.etcd.endpoint());
        assertThat(none[0]).isEqualTo("3");
        // an error since issue #21: on stderr, with the not-found exit code
        assertThat(none[2]).contains("no owner in etcd");
    }
}
