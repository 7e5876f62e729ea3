package dev.parley.e2e.web;

import dev.parley.e2e.process.PodProcess;
import com.microsoft.playwright.Browser;
import com.microsoft.playwright.Playwright;
import com.nimbusds.jose.jwk.ECKey;
import dev.parley.e2e.kube.MockCluster;
import dev.parley.kubectl.KubectlParley;
import dev.parley.operator.crd.AutoscalingMode;
import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.SfuPool;
import dev.parley.operator.crd.SfuPoolSpec;
import dev.parley.operator.model.PoolKind;
import dev.parley.operator.support.Pools;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.testsupport.etcd.EtcdCluster;
import dev.parley.testsupport.kube.LocalPodRunner;
import dev.parley.testsupport.net.FreePorts;
import dev.parley.testsupport.postgres.PostgresExtension;
import io.fabric8.kubernetes.api.model.EnvVar;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The operator's scale-up and drain end to end, with media: the real operator on Fabric8's mock API server,
 * {@link LocalPodRunner} (test infrastructure: a stand-in kubelet) turning its SFU Pods into real sfu-pod
 * processes, a real controller process, real etcd and PostgreSQL, and two headless Chromium participants
 * using the web app. Load from their meeting makes the SfuPool grow (a third SFU process appears and
 * registers); {@code kubectl-parley drain --wait} on the meeting's SFU moves both participants to another
 * SFU through {@code new_generation_required}; video keeps being decoded on every receiver after the move;
 * the drained SFU's process stops and its Pod is gone. Skips (with the reason) when the jars are not built.
 */
class OperatorDrainE2EIT {
    static final String NS = "parley";
    static final String REGION = "local";

    @TempDir
    Path tmp;
    /** Logs of the SFU processes (kept after the run for diagnosis). */
    static final Path POD_LOGS = Path.of("target", "operator-drain-e2e");

    @Test
    void loadAddsAnSfuAndDrainingTheBusySfuMovesTheMeetingWithMediaContinuing() throws Exception {
        String missing = LocalPlatform.missing(1);
        assumeTrue(missing == null, missing);
        ECKey ticketKey = TicketKeys.generate();
        PostgresExtension.Database db = PostgresExtension.createDatabase("operator_drain_e2e");
        java.nio.file.Files.createDirectories(POD_LOGS);
        ExecutorService drainThread = Executors.newSingleThreadExecutor();
        int httpPort = FreePorts.tcp();
        String controllerUrl = "http://127.0.0.1:" + httpPort;
        try (EtcdCluster etcd = EtcdCluster.start(1);
             MockCluster k8s = new MockCluster(etcd.endpointsCsv(), LocalPlatform.ROOT.resolve("crds"));
             LocalPodRunner kubelet = new LocalPodRunner(k8s.client, NS, ParleyApi.LABEL_COMPONENT,
                     Map.of(ParleyApi.COMPONENT_SFU, LocalPlatform.SFU_JAR), POD_LOGS);
             PodProcess controller = startController(httpPort, etcd.endpointsCsv(), db, ticketKey, k8s.internalSecret());
             Playwright pw = Playwright.create();
             Browser browser = Chromium.launch(pw)) {
            // the controller first: one JVM start at a time on a small shared machine
            controller.awaitReady(controllerUrl + "/health/readiness", Duration.ofSeconds(180));
            k8s.secret(NS, "parley-internal", "secret", k8s.internalSecret());
            k8s.secret(NS, "parley-ticket-key", "public.jwk", ticketKey.toPublicJWK().toJSONString());
            k8s.client.resources(SfuPool.class).inNamespace(NS).resource(pool()).create();
            BrowserParticipant.awaitTrue(() -> registered(k8s) == 2, Duration.ofSeconds(240),
                    "two SFU processes registered");

            // two people in a meeting, each decoding the other's camera
            String base = controllerUrl.replace("127.0.0.1", "localhost");
            try (BrowserParticipant host = new BrowserParticipant(browser, base, "Hana Host");
                 BrowserParticipant guest = new BrowserParticipant(browser, base, "Gus Guest")) {
                String link = host.createAndJoin("Drain review");
                String meetingId = link.substring(link.indexOf("#/m/") + 4);
                guest.join(link);
                host.awaitConnected(Duration.ofSeconds(60));
                guest.awaitConnected(Duration.ofSeconds(60));
                List<BrowserParticipant[]> pairs = List.of(new BrowserParticipant[]{host, guest}, new BrowserParticipant[]{guest, host});
                for (BrowserParticipant[] p : pairs) {
                    p[0].awaitVideoFrom(p[1].pid(), Duration.ofSeconds(40));
                }
                String busy = meetingSfu(db, meetingId);
                assertThat(busy).isNotNull();

                // their forwarding load (egress over the pool's tiny per-pod capacity) adds a third SFU process
                BrowserParticipant.awaitTrue(() -> registered(k8s) >= 3, Duration.ofSeconds(240),
                        "a third SFU process registered after the load rose");
                assertThat(k8s.eventsAbout(NS, "media", "ScalingUp")).isNotEmpty();
                assertThat(kubelet.runningProcesses()).isGreaterThanOrEqualTo(3);

                // kubectl parley drain --wait on the busy SFU
                long genHost = host.transportGeneration();
                long genGuest = guest.transportGeneration();
                Path kubeconfig = k8s.writeKubeconfig(tmp.resolve("kubeconfig"), NS);
                StringWriter out = new StringWriter();
                StringWriter err = new StringWriter();
                long t0 = System.nanoTime();
                CompletableFuture<Integer> drain = CompletableFuture.supplyAsync(() -> KubectlParley.run(new PrintWriter(out, true),
                        new PrintWriter(err, true), "drain", busy, "--wait", "--wait-timeout", "240s", "--poll-interval", "500ms",
                        "--kubeconfig", kubeconfig.toString()), drainThread);

                // both are told to leave (new_generation_required), take a new generation elsewhere and see each other again
                try {
                    BrowserParticipant.awaitTrue(() -> host.transportGeneration() > genHost && guest.transportGeneration() > genGuest,
                            Duration.ofSeconds(60), "both participants on a new transport generation");
                    for (BrowserParticipant[] p : pairs) {
                        p[0].awaitVideoFrom(p[1].pid(), Duration.ofSeconds(40));
                    }
                } catch (AssertionError e) {
                    throw new AssertionError(e.getMessage() + "\nhost: " + host.diagnostics() + "\nguest: " + guest.diagnostics()
                            + "\ndrain: " + out + err, e);
                }
                double movedMs = (System.nanoTime() - t0) / 1e6;
                assertThat(host.generationReasons()).contains("new_generation_required");
                assertThat(guest.generationReasons()).contains("new_generation_required");
                String target = meetingSfu(db, meetingId);
                assertThat(target).isNotEqualTo(busy);

                // the drain completes: the SFU emptied, its Pod deleted and its process stopped
                int code = drain.get(240, TimeUnit.SECONDS);
                assertThat(code).as(out + "\n" + err).isZero();
                assertThat(out.toString()).contains("phase 3/5 migrating").contains("drained and removed after");
                double drainedMs = (System.nanoTime() - t0) / 1e6;
                assertThat(k8s.client.pods().inNamespace(NS).withName(busy).get()).isNull();
                BrowserParticipant.awaitTrue(() -> !kubelet.isRunning(busy), Duration.ofSeconds(30), busy + "'s process stopped");
                assertThat(k8s.registry.loads(PoolKind.SFU, REGION)).doesNotContainKey(busy);
                var record = k8s.client.resources(SfuPool.class).inNamespace(NS).withName("media").get().getStatus().recentDrains
                        .stream().filter(d -> d.pod.equals(busy)).findFirst().orElseThrow();
                assertThat(record.outcome).isEqualTo("emptied");

                // media still flows on every receiver after the old SFU is gone
                for (BrowserParticipant[] p : pairs) {
                    p[0].awaitVideoFrom(p[1].pid(), Duration.ofSeconds(20));
                }
                System.out.printf("OperatorDrainE2EIT: %s -> %s; video decoded from the new SFU %.0f ms after the drain command,"
                        + " command returned after %.0f ms; operator: DRAINING -> emptied in %.1f s%n",
                        busy, target, movedMs, drainedMs, record.durationSeconds);
            }
        } finally {
            drainThread.shutdownNow();
        }
    }

    /** Builtin autoscaling with a tiny per-pod egress capacity, so two browsers are "load"; windows for a slow machine. */
    private static SfuPool pool() {
        SfuPool p = Pools.sfuPool(NS, "media", REGION, 2, 3);
        SfuPoolSpec s = p.getSpec();
        s.autoscaling.mode = AutoscalingMode.Builtin;
        s.autoscaling.egressBpsPerPod = 50_000L;
        s.health.registrationGraceSeconds = 240; // JVM starts are slow on a loaded 2-core machine
        s.drain.timeoutSeconds = 180;
        s.drain.migrationSeconds = 150;
        s.template.env.add(new EnvVar("PARLEY_ANNOUNCED_ADDRESS", "127.0.0.1", null));
        s.template.env.add(new EnvVar("PARLEY_LEASE_TTL_SECONDS", "5", null));
        return p;
    }

    private static PodProcess startController(int http, String etcd, PostgresExtension.Database db, ECKey ticketKey,
                                              String internalSecret) throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("PARLEY_POD_NAME", "controller-0");
        env.put("PARLEY_REGION", REGION);
        env.put("PARLEY_BIND_ADDRESS", "127.0.0.1");
        env.put("PARLEY_HTTP_PORT", Integer.toString(http));
        env.put("PARLEY_INTERNAL_PORT", Integer.toString(FreePorts.tcp()));
        env.put("PARLEY_PUBLIC_URL", "http://localhost:" + http);
        env.put("PARLEY_DB_URL", db.jdbcUrl());
        env.put("PARLEY_DB_USER", db.user());
        env.put("PARLEY_DB_PASSWORD", db.password());
        env.put("PARLEY_LOCAL_MODE", "true");
        env.put("PARLEY_JWT_HMAC_SECRET", UUID.randomUUID() + UUID.randomUUID().toString());
        env.put("PARLEY_TICKET_PRIVATE_JWK", ticketKey.toJSONString());
        env.put("PARLEY_ETCD_ENDPOINTS", etcd);
        env.put("PARLEY_INTERNAL_SECRET", internalSecret);
        env.put("PARLEY_LEASE_TTL_SECONDS", "5");
        return PodProcess.start("drain-e2e-controller-0", LocalPlatform.CONTROLLER_JAR, env);
    }

    /** Registered SFUs of the region; -1 while etcd is slow to answer (a starved machine). */
    private static int registered(MockCluster k8s) {
        try {
            return k8s.registry.loads(PoolKind.SFU, REGION).size();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    private static String meetingSfu(PostgresExtension.Database db, String meetingId) throws Exception {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT sfu_pod FROM meetings WHERE meeting_id = '" + UUID.fromString(meetingId) + "'")) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}
