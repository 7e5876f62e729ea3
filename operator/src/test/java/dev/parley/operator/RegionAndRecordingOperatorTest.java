package dev.parley.operator;

import static dev.parley.operator.support.Pools.podNames;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.parley.operator.crd.MediaRegion;
import dev.parley.operator.crd.RecordingJob;
import dev.parley.operator.crd.RecordingJobSpec;
import dev.parley.operator.crd.RecordingOutput;
import dev.parley.operator.crd.RecordingPhase;
import dev.parley.operator.crd.SfuPool;
import dev.parley.operator.support.OperatorHarness;
import dev.parley.operator.support.Pools;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Service;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** MediaRegion (TURN pool + stable Services) scaling independently of SFU pools; RecordingJob generations. */
class RegionAndRecordingOperatorTest {
    static OperatorHarness h;

    @BeforeAll
    static void start() throws Exception {
        h = new OperatorHarness();
    }

    @AfterAll
    static void stop() throws Exception {
        h.close();
    }

    @Test
    void turnAndSfuPoolsScaleIndependently() throws Exception {
        String ns = "region";
        h.client.resources(SfuPool.class).inNamespace(ns).resource(Pools.sfuPool(ns, "sfu-a", "eu1", 2, 6)).create();
        h.client.resources(MediaRegion.class).inNamespace(ns).resource(Pools.region(ns, "eu1", "eu1", List.of("sfu-a"))).create();
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> podNames(h.client, ns, "sfu", "sfu-a").size() == 2
                && podNames(h.client, ns, "turn", "eu1-turn").size() == 1);
        List<String> sfus = podNames(h.client, ns, "sfu", "sfu-a");
        String turn = podNames(h.client, ns, "turn", "eu1-turn").get(0);

        // stable Services, with the hostnames for external DNS
        Service turnSvc = h.client.services().inNamespace(ns).withName("eu1-turn").get();
        assertThat(turnSvc.getSpec().getSelector()).containsEntry("parley.dev/serving", "true").containsEntry("parley.dev/component", "turn");
        assertThat(turnSvc.getMetadata().getAnnotations()).containsEntry("external-dns.alpha.kubernetes.io/hostname", "turn.eu1.example.test");
        assertThat(h.client.services().inNamespace(ns).withName("eu1-signaling").get()).isNotNull();

        // TURN busy (90 of 100 allocations), SFUs quiet -> only TURN grows
        h.registry.turn("eu1", turn, "ACTIVE", 90, 1000);
        for (String s : sfus) {
            h.registry.sfu("eu1", s, "ACTIVE", 0.4, 5);
        }
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> podNames(h.client, ns, "turn", "eu1-turn").size() == 2);
        Thread.sleep(1000);
        assertThat(podNames(h.client, ns, "sfu", "sfu-a")).hasSize(2);
        assertThat(h.eventsAbout(ns, "sfu-a", "ScalingUp")).isEmpty();
        assertThat(h.eventsAbout(ns, "eu1", "ScalingUp")).singleElement()
                .satisfies(e -> assertThat(e.getMessage()).startsWith("TURN eu1-turn: 1 -> 2"));

        // SFUs busy, TURN now quiet -> only the SFU pool grows; TURN holds (long scale-down stabilization)
        h.registry.turn("eu1", turn, "ACTIVE", 30, 1000);
        for (String s : sfus) {
            h.registry.sfu("eu1", s, "ACTIVE", 0.95, 60);
        }
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> podNames(h.client, ns, "sfu", "sfu-a").size() == 4);
        Thread.sleep(1000);
        assertThat(podNames(h.client, ns, "turn", "eu1-turn")).hasSize(2);
        assertThat(h.eventsAbout(ns, "eu1", "ScalingUp")).hasSize(1);

        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> {
            MediaRegion mr = h.client.resources(MediaRegion.class).inNamespace(ns).withName("eu1").get();
            assertThat(mr.getStatus().turn.replicas).isEqualTo(2);
            assertThat(mr.getStatus().sfuPools).singleElement().satisfies(c -> assertThat(c.replicas).isEqualTo(4));
            assertThat(mr.getStatus().conditions).anyMatch(c -> c.getType().equals("Ready"));
            assertThat(mr.getStatus().observedGeneration).isEqualTo(mr.getMetadata().getGeneration());
        });
    }

    private static void setPhase(String ns, String pod, String phase) {
        h.client.pods().inNamespace(ns).withName(pod).editStatus(p -> {
            p.setStatus(new PodStatusBuilder().withPhase(phase).build());
            return p;
        });
    }

    private RecordingJob job(String ns) {
        return h.client.resources(RecordingJob.class).inNamespace(ns).withName("rec1").get();
    }

    @Test
    void recordingJobRetriesWithNewGenerationsUpToTheLimit() throws Exception {
        String ns = "rec";
        RecordingJob j = new RecordingJob();
        j.setMetadata(new ObjectMetaBuilder().withName("rec1").withNamespace(ns).build());
        RecordingJobSpec s = new RecordingJobSpec();
        s.meetingId = "m-1";
        s.jobId = "job-1";
        s.region = "eu1";
        s.output = new RecordingOutput();
        s.output.bucket = "recordings";
        s.retryLimit = 1;
        j.setSpec(s);
        h.client.resources(RecordingJob.class).inNamespace(ns).resource(j).create();

        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> h.client.pods().inNamespace(ns).withName("rec-rec1-g1").get() != null);
        Pod g1 = h.client.pods().inNamespace(ns).withName("rec-rec1-g1").get();
        assertThat(g1.getSpec().getRestartPolicy()).isEqualTo("Never");
        assertThat(g1.getSpec().getContainers().get(0).getEnv())
                .anyMatch(e -> e.getName().equals("PARLEY_RECORDING_GENERATION") && e.getValue().equals("1"));
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> assertThat(job(ns).getMetadata().getFinalizers()).isNotEmpty());

        // generation 1 runs and reports progress in etcd, then fails
        setPhase(ns, "rec-rec1-g1", "Running");
        h.registry.runner("job-1", "rec-rec1-g1", 1, "recording", 7);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> {
            RecordingJob r = job(ns);
            assertThat(r.getStatus().phase).isEqualTo(RecordingPhase.RECORDING);
            assertThat(r.getStatus().segments).isEqualTo(7L);
            assertThat(r.getStatus().missingRanges).singleElement().satisfies(m -> assertThat(m.toMs).isEqualTo(12000L));
        });
        setPhase(ns, "rec-rec1-g1", "Failed");
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> h.client.pods().inNamespace(ns).withName("rec-rec1-g2").get() != null);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> {
            RecordingJob r = job(ns);
            assertThat(r.getStatus().generation).isEqualTo(2);
            assertThat(r.getStatus().failedGenerations).isEqualTo(1);
            assertThat(r.getStatus().phase).isEqualTo(RecordingPhase.STARTING);
        });
        assertThat(h.eventsAbout(ns, "rec1", "RecorderRetry")).singleElement()
                .satisfies(e -> assertThat(e.getMessage()).contains("starting generation 2"));
        // a stale generation's progress does not overwrite the new one
        h.registry.runner("job-1", "rec-rec1-g1", 1, "finalizing", 99);
        Thread.sleep(800);
        assertThat(job(ns).getStatus().segments).isNotEqualTo(99L);

        // generation 2 fails too: the retry limit (1) is used up
        setPhase(ns, "rec-rec1-g2", "Failed");
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> {
            RecordingJob r = job(ns);
            assertThat(r.getStatus().phase).isEqualTo(RecordingPhase.FAILED);
            assertThat(r.getStatus().conditions).anyMatch(c -> c.getType().equals("Failed") && c.getStatus().equals("True")
                    && c.getObservedGeneration().equals(r.getMetadata().getGeneration()));
        });
        assertThat(h.client.pods().inNamespace(ns).withName("rec-rec1-g3").get()).isNull();
        assertThat(h.eventsAbout(ns, "rec1", "RecordingFailed")).hasSize(1);

        // delete: the finalizer removes recorder pods and the runner key
        h.client.resources(RecordingJob.class).inNamespace(ns).withName("rec1").delete();
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> job(ns) == null
                && h.client.pods().inNamespace(ns).withLabel("parley.dev/recording-job", "rec1").list().getItems().isEmpty());
        assertThat(h.registry.get("/parley/v1/recordings/job-1/runner")).isEmpty();
    }
}
