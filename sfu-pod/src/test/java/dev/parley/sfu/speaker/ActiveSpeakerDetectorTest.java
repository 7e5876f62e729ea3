package dev.parley.sfu.speaker;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Feeds 20 ms audio packets with RFC 6464 levels for several participants and evaluates every 200 ms, like
 * the SFU would.
 */
class ActiveSpeakerDetectorTest {

    private static final int SPEECH = 25;   // dBov: normal speech near the microphone
    private static final int SILENCE = 127;

    private final ActiveSpeakerDetector detector = new ActiveSpeakerDetector(3);
    private final List<String> dominantChanges = new ArrayList<>();
    private long now;
    private String lastDominant;
    private ActiveSpeakers latest;

    interface Levels {
        int level(String who, long t);
    }

    private void run(long ms, Levels levels, String... who) {
        int[] slots = new int[who.length];
        for (int i = 0; i < who.length; i++) {
            slots[i] = detector.register(who[i]);
        }
        for (long end = now + ms; now < end; now += 20) {
            for (int i = 0; i < who.length; i++) {
                detector.onAudioLevel(slots[i], levels.level(who[i], now), now);
            }
            if (now % 200 == 0) {
                ActiveSpeakers s = detector.evaluate(now);
                if (s != null) {
                    latest = s;
                }
                if (s != null && s.dominant() != null && !s.dominant().equals(lastDominant)) {
                    dominantChanges.add(now + ":" + s.dominant());
                    lastDominant = s.dominant();
                }
            }
        }
    }

    @Test
    void sustainedSpeechBecomesDominantWithinASecond() {
        run(1_000, (w, t) -> w.equals("alice") ? SPEECH : SILENCE, "alice", "bob", "carol");
        assertThat(lastDominant).isEqualTo("alice");
        assertThat(dominantChanges).hasSize(1);
        assertThat(Long.parseLong(dominantChanges.get(0).split(":")[0])).isLessThanOrEqualTo(1_000);
    }

    @Test
    void doesNotFlapOnAlternatingNoiseButSwitchesOnSustainedSpeech() {
        run(3_000, (w, t) -> w.equals("alice") ? SPEECH : SILENCE, "alice", "bob", "carol");
        assertThat(lastDominant).isEqualTo("alice");

        // 10 s of alternating short bursts: alice and bob take turns every 300 ms (crosstalk, "yes", "no"),
        // carol's keyboard clicks at random
        SplittableRandom rnd = new SplittableRandom(3);
        run(10_000, (w, t) -> switch (w) {
            case "alice" -> (t / 300) % 2 == 0 ? SPEECH : SILENCE;
            case "bob" -> (t / 300) % 2 == 1 ? SPEECH : SILENCE;
            default -> rnd.nextInt(10) == 0 ? 40 : SILENCE;
        }, "alice", "bob", "carol");
        assertThat(dominantChanges).as("no flapping: " + dominantChanges).hasSize(1);

        // bob talks on his own: he takes over, once
        long bobStarts = now;
        run(3_000, (w, t) -> w.equals("bob") ? SPEECH : SILENCE, "alice", "bob", "carol");
        assertThat(lastDominant).isEqualTo("bob");
        assertThat(dominantChanges).hasSize(2);
        long switchedAt = Long.parseLong(dominantChanges.get(1).split(":")[0]);
        assertThat(switchedAt - bobStarts).as("switch delay").isBetween(500L, 2_000L);
    }

    @Test
    void constantBackgroundNoiseStopsCountingAsSpeech() {
        SplittableRandom rnd = new SplittableRandom(8);
        // carol sits next to a fan (48..52 dBov all the time); alice talks from t = 10 s, with syllable gaps
        run(20_000, (w, t) -> switch (w) {
            case "carol" -> 48 + rnd.nextInt(5);
            case "alice" -> t < 10_000 ? SILENCE : (t % 500 < 400 ? 20 + rnd.nextInt(15) : 75);
            default -> SILENCE;
        }, "alice", "bob", "carol");
        assertThat(latest.speakers()).as("the fan is not a speaker").containsExactly("alice");
        assertThat(detector.score("carol", now)).isLessThan(ActiveSpeakerDetector.LEAVE_SCORE);
        assertThat(lastDominant).isEqualTo("alice");
    }

    @Test
    void listIsOrderedByEnergyAndSilentParticipantsLeaveIt() {
        run(2_000, (w, t) -> switch (w) {
            case "alice" -> SPEECH;
            case "bob" -> 45; // quieter
            default -> SILENCE;
        }, "alice", "bob", "carol");
        assertThat(latest.speakers()).containsExactly("alice", "bob");
        assertThat(detector.score("alice", now)).isGreaterThan(detector.score("bob", now));

        run(6_000, (w, t) -> SILENCE, "alice", "bob", "carol");
        assertThat(latest.speakers()).isEmpty();
        assertThat(latest.dominant()).isNull();
        assertThat(detector.score("alice", now)).isLessThan(ActiveSpeakerDetector.LEAVE_SCORE);
    }

    @Test
    void sequenceIncreasesAndUnchangedStateEmitsNothing() {
        run(1_000, (w, t) -> w.equals("alice") ? SPEECH : SILENCE, "alice", "bob");
        ActiveSpeakers first = detector.evaluate(now); // may be null if unchanged since the run's last evaluate
        assertThat(first).isNull();
        detector.unregister("alice");
        ActiveSpeakers afterLeave = detector.evaluate(now);
        assertThat(afterLeave).isNotNull();
        assertThat(afterLeave.speakers()).isEmpty();
        assertThat(afterLeave.sequence()).isGreaterThan(1);
    }

    @Test
    void outOfRangeLevelsAndUnknownSlotsAreHarmless() {
        int slot = detector.register("alice");
        detector.onAudioLevel(slot, -5, 0);
        detector.onAudioLevel(slot, 500, 20);
        detector.onAudioLevel(99, 10, 40);
        detector.onAudioLevel(-1, 10, 60);
        assertThat(detector.score("alice", 60)).isBetween(0.0, 1.0);
        assertThat(detector.register("alice")).isEqualTo(slot);
    }
}
