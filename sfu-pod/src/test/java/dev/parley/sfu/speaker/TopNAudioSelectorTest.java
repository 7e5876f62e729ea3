package dev.parley.sfu.speaker;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The held set of top-N audio: entry on the first packet, hysteresis, ties, N changes. Levels are RFC 6464 dBov. */
class TopNAudioSelectorTest {
    private static final int LOUD = 20, SPEECH = 40, QUIET = 55, SILENCE = 127;

    @Test
    void whileThereIsRoomEveryPublisherIsHeldOnItsFirstPacket() {
        TopNAudioSelector s = new TopNAudioSelector(2);               // holds up to 3
        int a = s.register("a"), b = s.register("b"), c = s.register("c"), d = s.register("d");
        assertThat(s.onLevel(a, SILENCE, 0)).isTrue();
        assertThat(s.onLevel(b, SILENCE, 0)).isTrue();
        assertThat(s.onLevel(c, SILENCE, 0)).isTrue();
        assertThat(s.onLevel(d, SILENCE, 0)).as("full, and silence takes no place").isFalse();
        assertThat(s.ranked(0)).containsExactly("a", "b", "c");
    }

    @Test
    void aRisingSpeakerTakesTheQuietestPlaceOnItsFirstLoudPacket() {
        TopNAudioSelector s = new TopNAudioSelector(1);                // holds up to 2
        int a = s.register("a"), b = s.register("b"), c = s.register("c");
        for (long t = 0; t < 5_000; t += 20) { s.onLevel(a, SPEECH, t); s.onLevel(b, SILENCE, t); s.onLevel(c, SILENCE, t); }
        assertThat(s.ranked(5_000)).containsExactly("a", "b");
        long before = s.version();
        assertThat(s.onLevel(c, SPEECH, 5_000)).as("c's very first word").isTrue();
        assertThat(s.version()).isGreaterThan(before);
        assertThat(s.ranked(5_000)).containsExactlyInAnyOrder("a", "c");
        assertThat(s.isHeld("b")).isFalse();
    }

    @Test
    void anActiveSpeakerIsOnlyDisplacedByAClearlyLouderOneAfterItsMinimumHold() {
        TopNAudioSelector s = new TopNAudioSelector(1);
        int a = s.register("a"), b = s.register("b"), c = s.register("c");
        s.onLevel(a, SPEECH, 0);
        s.onLevel(b, QUIET, 0);                                         // held, active (55 dBov is speech)
        assertThat(s.onLevel(c, QUIET - 3, 100)).as("3 dB louder is within the hysteresis").isFalse();
        assertThat(s.onLevel(c, LOUD, 100)).as("much louder, but b was held only 100 ms").isFalse();
        s.onLevel(a, SPEECH, 1_000);
        s.onLevel(b, QUIET, 1_000);
        assertThat(s.onLevel(c, LOUD, 1_020)).as("held 1 s, 35 dB louder").isTrue();
        assertThat(s.ranked(1_020)).containsExactly("c", "a");
    }

    @Test
    void aFinishedSpeakerFadesOutAndIsReplacedWithoutHysteresis() {
        TopNAudioSelector s = new TopNAudioSelector(1);
        int a = s.register("a"), b = s.register("b"), c = s.register("c");
        s.onLevel(a, SPEECH, 0);
        s.onLevel(b, SPEECH, 0);
        for (long t = 20; t < 3_000; t += 20) { s.onLevel(a, SPEECH, t); s.onLevel(b, SILENCE, t); }
        // b stopped 3 s ago: its envelope (87 dB) fell 20 dB/s below "speech" (67 dB); a quiet new voice gets in
        assertThat(s.onLevel(c, QUIET, 3_000)).isTrue();
        assertThat(s.ranked(3_000)).containsExactly("a", "c");
    }

    @Test
    void tiesAreBrokenByIdWhateverTheRegistrationOrder() {
        for (List<String> order : List.of(List.of("x", "y", "z"), List.of("z", "y", "x"))) {
            TopNAudioSelector s = new TopNAudioSelector(1);
            for (String id : order) s.register(id);
            for (String id : List.of("x", "y", "z")) s.onLevel(s.register(id), SPEECH, 0);
            assertThat(s.ranked(0)).as("registered %s", order).containsExactly("x", "y");
        }
        TopNAudioSelector s = new TopNAudioSelector(2);
        for (String id : List.of("c", "a", "b")) s.onLevel(s.register(id), SPEECH, 0);
        assertThat(s.ranked(0)).containsExactly("a", "b", "c");
        assertThat(s.setN(1, 0)).isTrue();
        assertThat(s.ranked(0)).as("the largest id is the weakest of equals").containsExactly("a", "b");
    }

    @Test
    void unregisteringAHeldSpeakerFreesItsPlace() {
        TopNAudioSelector s = new TopNAudioSelector(1);
        int a = s.register("a"), b = s.register("b"), c = s.register("c");
        s.onLevel(a, LOUD, 0);
        s.onLevel(b, LOUD, 0);
        assertThat(s.onLevel(c, LOUD, 0)).isFalse();
        assertThat(s.unregister("b")).isTrue();
        assertThat(s.unregister("b")).isFalse();
        assertThat(s.onLevel(c, SILENCE, 20)).isTrue();
        assertThat(s.onLevel(b, LOUD, 20)).as("unknown index slot of a gone speaker").isFalse();
    }

    @Test
    void nIsBounded() {
        assertThatThrownBy(() -> new TopNAudioSelector(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TopNAudioSelector(TopNAudioSelector.MAX_N + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new TopNAudioSelector(TopNAudioSelector.MAX_N).capacity()).isEqualTo(TopNAudioSelector.MAX_N + 1);
    }
}
