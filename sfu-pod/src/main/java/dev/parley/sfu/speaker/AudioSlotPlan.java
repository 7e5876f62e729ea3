package dev.parley.sfu.speaker;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which speaker each of one receiver's audio slots carries under top-N audio. Pure: the same inputs give the
 * same plan.
 *
 * <p>The receiver gets at most {@code n} speakers (never itself), in this order of preference: the speakers it
 * pinned (sorted by id, as many as fit); held speakers who are active (talking), those it already hears first
 * (sticky: a new ranking among talkers does not shuffle what a receiver hears), then the others loudest first; then
 * held speakers who are quiet, again those it already hears first. So a talker always wins a slot over someone
 * silent, and nothing moves while nobody new talks. A speaker that stays keeps its slot index; a newcomer takes the
 * lowest free slot. Slots at index {@code n} and above stay empty.
 */
public final class AudioSlotPlan {
    private AudioSlotPlan() {}

    /**
     * @param current the speaker id per audio slot now (null = free); its length is the receiver's slot count
     * @param n       the meeting's top-N
     * @param ranked  the meeting's held speakers, loudest first ({@link TopNAudioSelector#ranked})
     * @param active  those of them talking now ({@link TopNAudioSelector#isActive})
     * @param self    the receiver (never planned onto its own slots)
     * @param pinned  speakers this receiver pinned that publish audio (any order)
     * @return the speaker id per slot (null = free), same length as {@code current}
     */
    public static String[] plan(String[] current, int n, List<String> ranked, Collection<String> active, String self,
                                Collection<String> pinned) {
        int limit = Math.min(n, current.length);
        Set<String> want = new LinkedHashSet<>();
        if (!pinned.isEmpty()) pinned.stream().filter(id -> id != null && !id.equals(self)).sorted().limit(limit).forEach(want::add);
        for (boolean talking : new boolean[]{true, false}) {
            for (String id : current) {
                if (want.size() < limit && id != null && !id.equals(self) && ranked.contains(id) && active.contains(id) == talking) want.add(id);
            }
            for (String id : ranked) {
                if (want.size() < limit && !id.equals(self) && active.contains(id) == talking) want.add(id);
            }
        }
        String[] next = new String[current.length];
        Set<String> placed = new LinkedHashSet<>();
        for (int i = 0; i < limit; i++) {
            if (current[i] != null && want.contains(current[i]) && placed.add(current[i])) next[i] = current[i];
        }
        int free = 0;
        for (String id : want) {
            if (placed.contains(id)) continue;
            while (next[free] != null) free++;
            next[free] = id;
        }
        return next;
    }
}
