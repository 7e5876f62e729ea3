package dev.parley.sfu.speaker;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** One receiver's audio slots under top-N: pins first, never itself, sticky slots, at most n. */
class AudioSlotPlanTest {
    private static final Set<String> ALL = Set.of("a", "b", "c", "d", "me", "x", "y", "z");
    private static String[] free(int k) { return new String[k]; }

    @Test
    void theLoudestFillTheFirstNSlotsAndTheRestStayFree() {
        assertThat(AudioSlotPlan.plan(free(4), 2, List.of("a", "b", "c"), ALL, "me", Set.of())).containsExactly("a", "b", null, null);
    }

    @Test
    void aReceiverNeverGetsItself() {
        assertThat(AudioSlotPlan.plan(free(2), 2, List.of("me", "a", "b"), ALL, "me", Set.of("me"))).containsExactly("a", "b");
    }

    @Test
    void pinnedSpeakersAreAlwaysInEvenWhenSilent() {
        assertThat(AudioSlotPlan.plan(free(2), 2, List.of("a", "b", "c"), ALL, "me", Set.of("z"))).containsExactly("z", "a");
        assertThat(AudioSlotPlan.plan(free(2), 2, List.of("a"), ALL, "me", Set.of("z", "y", "x"))).as("more pins than slots: by id")
                .containsExactly("x", "y");
    }

    @Test
    void aSpeakerWhoStaysKeepsItsSlotAndANewcomerTakesTheFreedOne() {
        String[] now = {"a", "b", "c"};
        // c left the held set, d entered; a and b must not move even though d is now the loudest
        assertThat(AudioSlotPlan.plan(now, 3, List.of("d", "b", "a"), ALL, "me", Set.of())).containsExactly("a", "b", "d");
    }

    @Test
    void aRankChangeAmongTheHeldDoesNotShuffleAReceiver() {
        String[] now = {"b", "c"};
        assertThat(AudioSlotPlan.plan(now, 2, List.of("a", "b", "c"), ALL, "me", Set.of())).as("a is louder but c is still held")
                .containsExactly("b", "c");
    }

    @Test
    void aTalkerTakesTheSlotOfSomeoneSilentButNotOfAnotherTalker() {
        String[] now = {"a", "b"};
        assertThat(AudioSlotPlan.plan(now, 2, List.of("c", "a", "b"), Set.of("c", "a"), "me", Set.of()))
                .as("b went quiet, c talks").containsExactly("a", "c");
        assertThat(AudioSlotPlan.plan(now, 2, List.of("c", "a", "b"), Set.of("c", "a", "b"), "me", Set.of()))
                .as("all three talk: the receiver keeps whom it hears").containsExactly("a", "b");
        assertThat(AudioSlotPlan.plan(now, 2, List.of("c", "a", "b"), Set.of(), "me", Set.of()))
                .as("nobody talks: nothing moves").containsExactly("a", "b");
    }

    @Test
    void fewerSlotsThanNUseAllSlots() {
        assertThat(AudioSlotPlan.plan(free(1), 3, List.of("a", "b"), ALL, "me", Set.of())).containsExactly("a");
    }
}
