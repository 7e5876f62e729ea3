package dev.parley.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.parley.operator.crd.AutoscalingMode;
import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.SfuPool;
import dev.parley.operator.model.PoolKind;
import dev.parley.operator.support.OperatorHarness;
import dev.parley.operator.support.Pools;
import dev.parley.testsupport.kube.LocalPodRunner;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator on the mock API server with {@link LocalPodRunner} turning its Pods into real local SFU
 * processes. Runs only when {@code sfu-pod/target/sfu-pod.jar} has been built; otherwise reported as skipped.
 */
class OperatorLocalPodsIT {
    static final Path SFU_JAR = Path.of("..", "sfu-pod", "target", "sfu-pod.jar");
    static final Path TURN_JAR = Path.of("..", "turn-pod", "target", "turn-pod.jar");

    @TempDir
    Path logs;

    @Test
    void realSfuProcessesRegisterScaleAndDrainAway() throws Exception {
        assumeTrue(Files.isRegularFile(SFU_JAR),
                "sfu-pod/target/sfu-pod.jar not built: the local-process operator e2e needs the SFU jar (./mvnw -pl sfu-pod -am package)");
        String ns = "local";
        try (OperatorHarness h = new OperatorHarness();
             LocalPodRunner runner = new LocalPodRunner(h.client, ns, ParleyApi.LABEL_COMPONENT,
                     Map.of(ParleyApi.COMPONENT_SFU, SFU_JAR), logs)) {
            h.client.secrets().inNamespace(ns).resource(new SecretBuilder().withNewMetadata().withName("parley-internal").endMetadata()
                    .addToStringData("secret", "test-internal-secret").build()).create();
            h.client.secrets().inNamespace(ns).resource(new SecretBuilder().withNewMetadata().withName("parley-ticket-key").endMetadata()
                    .addToStringData("public.jwk", publicJwk()).build()).create();
            SfuPool pool = Pools.sfuPool(ns, "pool", "local", 2, 4);
            pool.getSpec().autoscaling.mode = AutoscalingMode.External;
            pool.getSpec().replicas = 2;
            pool.getSpec().drain.timeoutSeconds = 30;
            h.client.resources(SfuPool.class).inNamespace(ns).resource(pool).create();

            // the SFU processes register themselves in etcd
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> h.operatorRegistry.loads(PoolKind.SFU, "local").size() == 2);
            // an HPA writes spec.replicas through the scale subresource: a third process appears and registers
            h.client.resources(SfuPool.class).inNamespace(ns).withName("pool").edit(p -> {
                p.getSpec().replicas = 3;
                return p;
            });
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> h.operatorRegistry.loads(PoolKind.SFU, "local").size() == 3);
            assertThat(runner.runningProcesses()).isEqualTo(3);

            // drain one: DRAINING via its internal API, out of selection, empty -> pod and process gone
            String victim = h.operatorRegistry.loads(PoolKind.SFU, "local").keySet().iterator().next();
            Pools.requestDrain(h.client, ns, victim, "e2e");
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> h.client.pods().inNamespace(ns).withName(victim).get() == null);
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> !runner.isRunning(victim));
            assertThat(h.operatorRegistry.loads(PoolKind.SFU, "local")).doesNotContainKey(victim);
            assertThat(h.eventsAbout(ns, victim, "DrainPhase1Draining")).singleElement()
                    .satisfies(e -> assertThat(e.getMessage()).contains("pod signalled=true"));
        }
    }

    @Test
    void realTurnProcessRegistersAndIsDrainedAndReplaced() throws Exception {
        assumeTrue(Files.isRegularFile(TURN_JAR),
                "turn-pod/target/turn-pod.jar not built: the local-process TURN e2e needs it (./mvnw -pl turn-pod -am package)");
        String ns = "local-turn";
        try (OperatorHarness h = new OperatorHarness();
             LocalPodRunner runner = new LocalPodRunner(h.client, ns, ParleyApi.LABEL_COMPONENT,
                     Map.of(ParleyApi.COMPONENT_TURN, TURN_JAR), logs)) {
            h.client.secrets().inNamespace(ns).resource(new SecretBuilder().withNewMetadata().withName("parley-internal").endMetadata()
                    .addToStringData("secret", "test-internal-secret").build()).create();
            h.client.secrets().inNamespace(ns).resource(new SecretBuilder().withNewMetadata().withName("parley-turn").endMetadata()
                    .addToStringData("secrets", "e2e-turn-secret").build()).create();
            var region = Pools.region(ns, "lt", "lt", java.util.List.of());
            region.getSpec().turnHost = null;
            h.client.resources(dev.parley.operator.crd.MediaRegion.class).inNamespace(ns).resource(region).create();
            await().atMost(Duration.ofSeconds(90)).until(() -> h.operatorRegistry.loads(PoolKind.TURN, "lt").size() == 1);
            String first = h.operatorRegistry.loads(PoolKind.TURN, "lt").keySet().iterator().next();
            assertThat(h.operatorRegistry.loads(PoolKind.TURN, "lt").get(first).internalUrl()).startsWith("http://127.0.0.1:");

            Pools.requestDrain(h.client, ns, first, "e2e");
            await().atMost(Duration.ofSeconds(90)).until(() -> h.client.pods().inNamespace(ns).withName(first).get() == null);
            await().atMost(Duration.ofSeconds(30)).until(() -> !runner.isRunning(first));
            assertThat(h.eventsAbout(ns, first, "DrainPhase1Draining")).singleElement()
                    .satisfies(e -> assertThat(e.getMessage()).contains("pod signalled=true"));
            // the replacement TURN process registers under a new name
            await().atMost(Duration.ofSeconds(90)).until(() -> {
                var loads = h.operatorRegistry.loads(PoolKind.TURN, "lt");
                return loads.size() == 1 && !loads.containsKey(first);
            });
        }
    }

    /**
     * Real allocation load from coturn's turnutils_uclient (a third-party TURN client) on the real TURN process
     * makes the TURN pool grow: a second TURN process appears and registers.
     */
    @Test
    void turnPoolScalesUpOnRealAllocations() throws Exception {
        assumeTrue(Files.isRegularFile(TURN_JAR), "turn-pod/target/turn-pod.jar not built (./mvnw -pl turn-pod -am package)");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/turnutils_uclient")), "coturn's turnutils_uclient is not installed");
        String ns = "turn-load";
        try (OperatorHarness h = new OperatorHarness();
             LocalPodRunner runner = new LocalPodRunner(h.client, ns, ParleyApi.LABEL_COMPONENT,
                     Map.of(ParleyApi.COMPONENT_TURN, TURN_JAR), logs)) {
            h.client.secrets().inNamespace(ns).resource(new SecretBuilder().withNewMetadata().withName("parley-turn").endMetadata()
                    .addToStringData("secrets", "e2e-turn-secret").build()).create();
            var region = Pools.region(ns, "tl", "tl", java.util.List.of());
            region.getSpec().turnHost = null;
            region.getSpec().turn.autoscaling.allocationsPerPod = 10L;
            region.getSpec().turn.maxReplicas = 3;
            // TURN relays only to registered SFU media ports and explicit address:port rules: allow the echo peer
            int peerPort = 20000 + new java.util.Random().nextInt(20000);
            region.getSpec().turn.template.env.add(new io.fabric8.kubernetes.api.model.EnvVar("PARLEY_TURN_ALLOWED_PEERS",
                    "127.0.0.1:" + peerPort + "-" + (peerPort + 1), null));
            h.client.resources(dev.parley.operator.crd.MediaRegion.class).inNamespace(ns).resource(region).create();
            await().atMost(Duration.ofSeconds(90)).until(() -> h.operatorRegistry.loads(PoolKind.TURN, "tl").size() == 1);
            String first = h.operatorRegistry.loads(PoolKind.TURN, "tl").keySet().iterator().next();
            String turnPort = runner.env(first).get("PARLEY_TURN_PORT");

            // TURN REST credentials (docs/contracts.md): username {expiry}:{participant}, password base64(HMAC-SHA1)
            String user = (System.currentTimeMillis() / 1000 + 600) + ":load-client";
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA1");
            mac.init(new javax.crypto.spec.SecretKeySpec("e2e-turn-secret".getBytes(java.nio.charset.StandardCharsets.UTF_8), "HmacSHA1"));
            String pass = Base64.getEncoder().encodeToString(mac.doFinal(user.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            Process peer = new ProcessBuilder("/usr/bin/turnutils_peer", "-L", "127.0.0.1", "-p", String.valueOf(peerPort))
                    .redirectErrorStream(true).redirectOutput(logs.resolve("peer.log").toFile()).start();
            Process client = new ProcessBuilder("/usr/bin/turnutils_uclient", "-u", user, "-w", pass, "-e", "127.0.0.1",
                    "-r", String.valueOf(peerPort), "-p", turnPort, "-m", "5", "-n", "2000", "-l", "100", "-c", "127.0.0.1")
                    .redirectErrorStream(true).redirectOutput(logs.resolve("uclient.log").toFile()).start();
            try {
                await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() ->
                        h.operatorRegistry.loads(PoolKind.TURN, "tl").get(first).allocations() >= 7);
                await().atMost(Duration.ofSeconds(90)).until(() -> h.operatorRegistry.loads(PoolKind.TURN, "tl").size() >= 2);
                assertThat(runner.runningProcesses()).isGreaterThanOrEqualTo(2);
                assertThat(h.eventsAbout(ns, "tl", "ScalingUp")).isNotEmpty()
                        .allSatisfy(e -> assertThat(e.getMessage()).startsWith("TURN tl-turn: 1 -> 2"));
            } finally {
                client.destroyForcibly();
                peer.destroyForcibly();
            }
        }
    }

    /** An ES256 public JWK for the SFU's PARLEY_TICKET_PUBLIC_JWK. */
    static String publicJwk() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        ECPublicKey k = (ECPublicKey) g.generateKeyPair().getPublic();
        return "{\"kty\":\"EC\",\"crv\":\"P-256\",\"alg\":\"ES256\",\"use\":\"sig\",\"kid\":\"e2e\",\"x\":\"" + b64(k.getW().getAffineX())
                + "\",\"y\":\"" + b64(k.getW().getAffineY()) + "\"}";
    }

    private static String b64(BigInteger v) {
        byte[] raw = v.toByteArray();
        byte[] out = new byte[32];
        int n = Math.min(32, raw.length);
        System.arraycopy(raw, raw.length - n, out, 32 - n, n);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(out);
    }
}
