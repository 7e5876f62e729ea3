package dev.parley.testsupport.kube;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** How many consecutive ports a pod's {@code PARLEY_*_PORT} needs: an SFU's media workers bind port + i each. */
class LocalPodRunnerPortsTest {
    @Test
    void anSfuNeedsOnePortPerMediaWorker() {
        assertThat(LocalPodRunner.portSpan(Map.of("PARLEY_MEDIA_UDP_PORT", "7882", "PARLEY_SFU_WORKERS", "3"))).isEqualTo(3);
        assertThat(LocalPodRunner.portSpan(Map.of("PARLEY_MEDIA_UDP_PORT", "7882", "PARLEY_MEDIA_TCP_PORT", "7881")))
                .isGreaterThanOrEqualTo(Math.max(2, Runtime.getRuntime().availableProcessors()));
        assertThat(LocalPodRunner.portSpan(Map.of("PARLEY_MEDIA_UDP_PORT", "7882", "PARLEY_SFU_WORKERS", "auto"))).isGreaterThanOrEqualTo(2);
    }

    @Test
    void otherPodsNeedOne() {
        assertThat(LocalPodRunner.portSpan(Map.of("PARLEY_TURN_PORT", "3478", "PARLEY_INTERNAL_PORT", "8083"))).isEqualTo(1);
    }
}
