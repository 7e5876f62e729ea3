package dev.parley.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.operator.OperatorConfig;
import dev.parley.operator.config.PodSettings;
import dev.parley.operator.crd.SfuPool;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * PARLEY_LOG_FORMAT and PARLEY_LOG_LEVELS set on the operator reach the SFU, TURN and recorder pods it makes; unset,
 * the pods get nothing (the golden pods of {@link PodFactoryGoldenTest} are built that way and stay unchanged).
 */
class PodFactoryLogEnvTest {
    private static final Map<String, String> OPERATOR_ENV = Map.of("PARLEY_ETCD_ENDPOINTS", "http://127.0.0.1:2379",
            "PARLEY_LOG_FORMAT", "text", "PARLEY_LOG_LEVELS", "dev.parley=debug,io.netty=warn");

    private static List<EnvVar> env(Pod p) {
        return p.getSpec().getContainers().get(0).getEnv();
    }

    private static List<String> logValues(Pod p, String name) {
        return env(p).stream().filter(e -> name.equals(e.getName())).map(EnvVar::getValue).toList();
    }

    @Test
    void theOperatorsLogSettingsReachEveryPodItMakes() {
        PodFactory f = new PodFactory(OperatorConfig.fromEnv(OPERATOR_ENV).pods());
        SfuPool pool = PodFactoryGoldenTest.sfuPool();
        for (Pod p : List.of(f.sfuPod(pool, "pool-a-bcdfg"), f.turnPod(PodFactoryGoldenTest.region(), "eu-turn-bcdfg"),
                f.recorderPod(PodFactoryGoldenTest.job(), "rec-job-1-g2", 2))) {
            assertThat(logValues(p, "PARLEY_LOG_FORMAT")).as(p.getMetadata().getName()).containsExactly("text");
            assertThat(logValues(p, "PARLEY_LOG_LEVELS")).as(p.getMetadata().getName())
                    .containsExactly("dev.parley=debug,io.netty=warn");
        }
    }

    @Test
    void unsetOrBlankPassesNothing() {
        PodSettings settings = OperatorConfig.fromEnv(Map.of("PARLEY_LOG_LEVELS", "  ")).pods();
        assertThat(settings.logEnv()).isEmpty();
        PodFactory f = new PodFactory(settings);
        for (Pod p : PodFactoryGoldenTest.pods().values()) {
            assertThat(env(p)).extracting(EnvVar::getName).doesNotContain("PARLEY_LOG_FORMAT", "PARLEY_LOG_LEVELS");
        }
        assertThat(env(f.recorderPod(PodFactoryGoldenTest.job(), "rec-job-1-g2", 2))).extracting(EnvVar::getName)
                .doesNotContain("PARLEY_LOG_FORMAT", "PARLEY_LOG_LEVELS");
    }

    @Test
    void aPoolTemplateThatSetsTheSameNameWins() {
        PodFactory f = new PodFactory(OperatorConfig.fromEnv(OPERATOR_ENV).pods());
        SfuPool pool = PodFactoryGoldenTest.sfuPool();
        pool.getSpec().template.env.add(new EnvVarBuilder().withName("PARLEY_LOG_LEVELS").withValue("root=warn").build());
        Pod p = f.sfuPod(pool, "pool-a-bcdfg");
        assertThat(logValues(p, "PARLEY_LOG_LEVELS")).containsExactly("root=warn");
        assertThat(logValues(p, "PARLEY_LOG_FORMAT")).containsExactly("text");
    }

    @Test
    void noSecretIsPassedOn() {
        PodSettings s = OperatorConfig.fromEnv(Map.of("PARLEY_LOG_FORMAT", "json", "PARLEY_INTERNAL_SECRET", "s3cr3t")).pods();
        assertThat(s.logEnv()).containsExactly(Map.entry("PARLEY_LOG_FORMAT", "json"));
    }
}
