package dev.parley.e2e.web;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SDK's join timeline on the real platform (controller and SFU processes, the web app in headless Chromium):
 * three participants in turn join a meeting with one publisher; each one's {@code client.joinTimeline()} is complete,
 * its steps are in order from {@code admitted} (0) to {@code first_decoded}, and its total agrees with a probe that
 * times the same join from outside the SDK (JoinTimes). The 20-join figures and the old build beside this one are
 * bench/join (JoinTimeBenchIT), not this test.
 */
class JoinTimelineBrowserIT {
    @RegisterExtension
    static final BrowserPlatform<LocalPlatform> env = BrowserPlatform.of(() -> LocalPlatform.missing(1), () -> LocalPlatform.start(1));

    /**
     * The probe and the SDK each poll getStats every JoinTimes.PROBE_MS and may see different snapshots: on this
     * loaded machine a timer fires late by a few periods. A timeline on the wrong origin or clock is off by far more.
     */
    private static final double AGREE_MS = 250;

    @Test
    void everyJoinHasACompleteOrderedTimelineThatAgreesWithAnOutsideProbe() {
        String base = env.platform().baseUrl();
        try (BrowserParticipant host = new BrowserParticipant(env.browser(), base, "Pia Publisher")) {
            String link = host.createAndJoin("Join time");
            host.awaitConnected(Duration.ofSeconds(30));
            List<JoinTimes.Join> joins = new ArrayList<>();
            for (int i = 0; i < 3; i++) joins.add(JoinTimes.joinOnce(env.browser(), base, link, "Joiner " + i, "this build"));
            System.out.print(JoinTimes.report("this build", joins));
            for (JoinTimes.Join j : joins) {
                JsonNode t = j.timeline();
                assertThat(t).as("the SDK has a join timeline").isNotNull();
                assertThat(t.path("complete").asBoolean()).as("complete: %s", t).isTrue();
                double prev = -1;
                for (JsonNode s : t.path("steps")) {
                    double at = s.path("atMs").asDouble();
                    assertThat(at).as("%s not before the step before it: %s", s.path("step").asText(), t).isGreaterThanOrEqualTo(prev);
                    prev = at;
                }
                assertThat(j.stepAt("admitted")).isZero();
                assertThat(t.path("totalMs").asDouble()).as("total = first_decoded").isEqualTo(j.stepAt("first_decoded"));
                assertThat(j.stepAt("dtls_connected")).as("DTLS after the answer").isGreaterThan(j.stepAt("answer_received"));
                assertThat(t.path("totalMs").asDouble()).as("the SDK's total vs the probe's (%s)", t)
                        .isCloseTo(j.probeMs(), org.assertj.core.data.Offset.offset(AGREE_MS));
            }
        }
    }
}
