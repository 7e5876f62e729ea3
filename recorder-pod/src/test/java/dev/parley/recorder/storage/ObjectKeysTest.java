package dev.parley.recorder.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ObjectKeysTest {
    @Test
    void withoutAPrefixTheLayoutIsTodays() {
        ObjectKeys k = ObjectKeys.of(null);
        assertThat(k.segment("job-1", 2, "cam", 7)).isEqualTo("job-1/2/cam/7");
        assertThat(k.manifests("job-1")).isEqualTo("job-1/manifest/");
        assertThat(k.manifest("job-1", 2)).isEqualTo("job-1/manifest/00000000000000000002.json");
        assertThat(k.finalTrack("job-1", 2, "cam")).isEqualTo("job-1/2/final/cam.webm");
        assertThat(k.composite("job-1", 2)).isEqualTo("job-1/2/final/composite.mp4");
        assertThat(ObjectKeys.of("")).isSameAs(ObjectKeys.NONE);
    }

    @Test
    void everyKeyStartsWithTheNormalisedPrefix() {
        ObjectKeys k = ObjectKeys.of("/tenant-a//2026");
        assertThat(k.prefix()).isEqualTo("tenant-a/2026/");
        assertThat(k.segment("job-1", 2, "cam", 7)).isEqualTo("tenant-a/2026/job-1/2/cam/7");
        assertThat(k.manifest("job-1", 2)).isEqualTo("tenant-a/2026/job-1/manifest/00000000000000000002.json");
        assertThat(k.finalTrack("job-1", 2, "cam")).isEqualTo("tenant-a/2026/job-1/2/final/cam.webm");
        assertThat(k.composite("job-1", 2)).isEqualTo("tenant-a/2026/job-1/2/final/composite.mp4");
        assertThat(k.job("job-1")).isEqualTo("tenant-a/2026/job-1/");
        // dots inside a segment name nothing special
        assertThat(ObjectKeys.of("a..b/.hidden/v1.2").prefix()).isEqualTo("a..b/.hidden/v1.2/");
    }

    @Test
    void aPrefixThatCouldLeaveItsPlaceIsRefusedWithoutEchoingIt() {
        assertThatThrownBy(() -> ObjectKeys.of("tenant-a/../tenant-b")).hasMessageContaining("'..' segment");
        assertThatThrownBy(() -> ObjectKeys.of("./x")).hasMessageContaining("'.' segment");
        assertThatThrownBy(() -> ObjectKeys.of("tenant\r\nX-Injected: 1")).hasMessage("has a control character at index 6")
                .message().doesNotContain("Injected");
        assertThatThrownBy(() -> ObjectKeys.of("a\u007fb")).hasMessageContaining("control character");
        assertThatThrownBy(() -> ObjectKeys.of("a\u0085b")).hasMessageContaining("control character");
        // the limit counts UTF-8 bytes, slash included: 511 ASCII + '/' fits, 256 two-byte chars + '/' don't
        assertThat(ObjectKeys.of("x".repeat(511)).prefix()).hasSize(512);
        assertThatThrownBy(() -> ObjectKeys.of("x".repeat(512))).hasMessageContaining("513 bytes");
        assertThatThrownBy(() -> ObjectKeys.of("é".repeat(256))).hasMessageContaining("513 bytes");
    }
}
