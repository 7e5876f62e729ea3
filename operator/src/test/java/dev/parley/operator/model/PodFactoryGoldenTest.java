package dev.parley.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.operator.OperatorConfig;
import dev.parley.operator.crd.MediaRegion;
import dev.parley.operator.crd.RecordingJob;
import dev.parley.operator.crd.RecordingJobSpec;
import dev.parley.operator.crd.SfuPool;
import dev.parley.operator.support.Pools;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Pods built for a fixed spec, compared with golden YAML generated from the PodFactory as it was before it
 * moved into the model package. The one intended change since then, the startup probe, is checked on its own and
 * left out of the comparison. Refresh (only when a change to the pods is intended): {@code -Dparley.updateGolden=true}.
 */
class PodFactoryGoldenTest {
    static final Path GOLDEN = Path.of("src", "test", "resources", "golden");
    private static final KubernetesSerialization YAML = new KubernetesSerialization();

    static SfuPool sfuPool() {
        SfuPool p = Pools.sfuPool("media", "pool-a", "eu-1", 2, 6);
        p.getMetadata().setUid("uid-sfu");
        p.getSpec().template.image = "registry.test/sfu:1";
        p.getSpec().template.labels = new java.util.LinkedHashMap<>(Map.of("team", "media"));
        p.getSpec().template.annotations = new java.util.LinkedHashMap<>(Map.of("note", "golden"));
        p.getSpec().template.env = new java.util.ArrayList<>(java.util.List.of(
                new EnvVarBuilder().withName("EXTRA").withValue("1").build()));
        p.getSpec().template.nodeSelector = new java.util.LinkedHashMap<>(Map.of("pool", "media"));
        p.getSpec().template.tolerations = new java.util.ArrayList<>(java.util.List.of(
                new TolerationBuilder().withKey("media").withOperator("Exists").withEffect("NoSchedule").build()));
        p.getSpec().template.resources = new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
                .addToRequests("cpu", new Quantity("2")).build();
        p.getSpec().template.hostNetwork = true;
        p.getSpec().template.priorityClassName = "media-critical";
        return p;
    }

    static MediaRegion region() {
        MediaRegion r = Pools.region("media", "eu", "eu-1", java.util.List.of("pool-a"));
        r.getMetadata().setUid("uid-region");
        return r;
    }

    static RecordingJob job() {
        RecordingJob j = new RecordingJob();
        j.setMetadata(new ObjectMetaBuilder().withName("job-1").withNamespace("media").withUid("uid-job").build());
        RecordingJobSpec s = new RecordingJobSpec();
        s.jobId = "job-1";
        s.meetingId = "m-1";
        s.region = "eu-1";
        s.output = new dev.parley.operator.crd.RecordingOutput();
        s.output.bucket = "recordings";
        s.output.prefix = "tenant-a/";
        s.output.endpoint = "http://127.0.0.1:9000";
        s.output.credentialsSecret = "s3-creds";
        j.setSpec(s);
        return j;
    }

    static Map<String, Pod> pods() {
        PodFactory f = new PodFactory(OperatorConfig.forTests("http://127.0.0.1:2379", Duration.ofMillis(300)).pods());
        return Map.of(
                "sfu-pod.yaml", f.sfuPod(sfuPool(), "pool-a-bcdfg"),
                "turn-pod.yaml", f.turnPod(region(), "eu-turn-bcdfg"),
                "recorder-pod.yaml", f.recorderPod(job(), "rec-job-1-g2", 2));
    }

    @Test
    void podsForTheSameSpecAreUnchanged() throws IOException {
        for (var e : pods().entrySet()) {
            Pod pod = e.getValue();
            for (var c : pod.getSpec().getContainers()) {
                assertThat(c.getStartupProbe()).as("%s startupProbe", e.getKey()).isNotNull();
                assertThat(c.getStartupProbe().getHttpGet().getPath()).isEqualTo("/healthz");
                assertThat(c.getStartupProbe().getPeriodSeconds() * c.getStartupProbe().getFailureThreshold())
                        .as("%s startup budget (s)", e.getKey()).isGreaterThanOrEqualTo(60);
                c.setStartupProbe(null);
            }
            String yaml = YAML.asYaml(pod);
            Path golden = GOLDEN.resolve(e.getKey());
            if (Boolean.getBoolean("parley.updateGolden")) {
                Files.createDirectories(GOLDEN);
                Files.writeString(golden, yaml);
            }
            assertThat(yaml).as("%s differs from the golden pod", e.getKey()).isEqualTo(Files.readString(golden));
        }
    }
}
