package dev.parley.sfu.routing;

import dev.parley.media.srtp.SrtpProfile;
import dev.parley.sfu.signaling.MediaPlan;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Which SRTP profile the SFU prefers per connection: GCM unless it would have to re-seal a NACKed packet. */
class SrtpProfileChoiceTest {
    private static MediaPlan plan(String kind, boolean accepted, int rtxPayloadType) {
        return new MediaPlan("0", kind, accepted, true, 96, "VP8", 90000, Map.of(), List.of(), List.of(), 1L,
                rtxPayloadType, List.of(), rtxPayloadType == 0 ? 0L : 2L);
    }

    @Test
    void gcmFirstForPublishersAndForSubscribersWithRtx() {
        assertThat(Router.srtpProfiles(true, List.of(plan("video", true, 0))).getFirst()).isEqualTo(SrtpProfile.AEAD_AES_128_GCM);
        assertThat(Router.srtpProfiles(false, List.of(plan("audio", true, 0), plan("video", true, 97))).getFirst())
                .isEqualTo(SrtpProfile.AEAD_AES_128_GCM);
        assertThat(Router.srtpProfiles(false, List.of(plan("video", false, 0), plan("video", true, 97))).getFirst())
                .as("a rejected section does not count").isEqualTo(SrtpProfile.AEAD_AES_128_GCM);
    }

    @Test
    void cmFirstForSubscribersWithVideoWithoutRtx() {
        assertThat(Router.srtpProfiles(false, List.of(plan("video", true, 97), plan("video", true, 0))))
                .containsExactly(SrtpProfile.AES128_CM_HMAC_SHA1_80, SrtpProfile.AEAD_AES_128_GCM);
    }
}
