package dev.parley.controller.logging;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class RequestMdcTest {
    private static final String M = "0b7c6f1e-2a3b-4c5d-8e9f-a0b1c2d3e4f5";
    private static final String P = "1c8d7a2f-3b4c-4d5e-9f0a-b1c2d3e4f5a6";

    @Test
    void takesMeetingAndParticipantFromThePath() {
        assertThat(RequestMdc.forPath("/v1/meetings/" + M + "/participants", "controller-0"))
                .isEqualTo(Map.of("pod", "controller-0", "meeting_id", M));
        assertThat(RequestMdc.forPath("/v1/meetings/" + M.toUpperCase() + "/participants/" + P + "/transports", "c"))
                .containsEntry("meeting_id", M).containsEntry("participant_id", P);
        assertThat(RequestMdc.forPath("/internal/v1/meetings/" + M, "c")).containsEntry("meeting_id", M);
    }

    @Test
    void takesNothingThatIsNotAUuid() {
        assertThat(RequestMdc.forPath("/v1/meetings/" + M + "x", "c")).isEqualTo(Map.of("pod", "c"));
        assertThat(RequestMdc.forPath("/v1/meetings/%0Afake=1", "c")).isEqualTo(Map.of("pod", "c"));
        assertThat(RequestMdc.forPath("/v1/meetings/" + M + "/participants/not-a-uuid", "c"))
                .isEqualTo(Map.of("pod", "c", "meeting_id", M));
        assertThat(RequestMdc.forPath(null, "c")).isEqualTo(Map.of("pod", "c"));
        assertThat(RequestMdc.forPath("/v1/meetings/" + M.replace('0', '\uFF10'), "c")).isEqualTo(Map.of("pod", "c"));
        assertThat(RequestMdc.forPath("/v1/meetings/" + M.replace('-', '_'), "c")).isEqualTo(Map.of("pod", "c"));
    }

    @Test
    void takesTheFirstMeetingSegmentThatIsAUuid() {
        assertThat(RequestMdc.forPath("/v1/meetings/nope/meetings/" + M + "/participants/" + P, "c"))
                .isEqualTo(Map.of("pod", "c", "meeting_id", M, "participant_id", P));
        assertThat(RequestMdc.forPath("/v1/meetings/" + M + "/participants/" + P + "x", "c"))
                .isEqualTo(Map.of("pod", "c", "meeting_id", M));
    }
}
