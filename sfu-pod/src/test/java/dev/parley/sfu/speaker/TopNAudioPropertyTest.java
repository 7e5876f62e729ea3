package dev.parley.sfu.speaker;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Properties of top-N audio over random meetings (seeded: a failure names its seed, rerun with it): random N,
 * speakers joining, talking (bursts of speech, pauses, silence), leaving, receivers pinning and unpinning. Checked
 * after every packet (held set) and every 20 ms (receivers' plans):
 * <ul>
 *   <li>the held set never exceeds N + 1, and each receiver's plan carries at most N speakers, never itself, no one
 *       twice, only held or pinned speakers;</li>
 *   <li>pinned speakers are always in (up to N);</li>
 *   <li>talkers first: a receiver hears as many of the held talkers as its unpinned slots allow, never someone
 *       silent while a talker waits;</li>
 *   <li>hysteresis: a speaker held for less than the minimum hold time while still active is never displaced by
 *       another speaker (only by leaving or an N change);</li>
 *   <li>sticky slots: a speaker a receiver keeps stays in the same slot;</li>
 *   <li>determinism: the same packets with the speakers registered in another order give the same held set.</li>
 * </ul>
 */
class TopNAudioPropertyTest {
    private static final int RUNS = 100;

    @Test
    void invariantsHoldOnRandomMeetings() {
        for (long seed = 1; seed <= RUNS; seed++) {
            try {
                run(seed);
            } catch (AssertionError e) {
                throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
            }
        }
    }

    private void run(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int n = 1 + rnd.nextInt(5);
        int people = 2 + rnd.nextInt(9);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < people; i++) ids.add("p" + rnd.nextInt(1000) + "-" + i);
        List<String> shuffled = new ArrayList<>(ids);
        java.util.Collections.shuffle(shuffled, new java.util.Random(seed));
        TopNAudioSelector s = new TopNAudioSelector(n), twin = new TopNAudioSelector(n);
        for (String id : ids) s.register(id);
        for (String id : shuffled) twin.register(id);
        int[] loudness = new int[people];           // per speaker: current level while talking
        boolean[] talking = new boolean[people], gone = new boolean[people];
        Map<String, String[]> slots = new HashMap<>();
        Map<String, Set<String>> pins = new HashMap<>();
        for (String id : ids) { slots.put(id, new String[n + rnd.nextInt(3)]); pins.put(id, new HashSet<>()); }
        Map<String, Long> heldSince = new HashMap<>();

        for (long t = 0; t < 6_000; t += 20) {
            for (int i = 0; i < people; i++) {
                if (gone[i]) continue;
                if (rnd.nextInt(100) == 0) talking[i] = !talking[i];
                if (talking[i] && rnd.nextInt(30) == 0) loudness[i] = 15 + rnd.nextInt(45);
                if (rnd.nextInt(2000) == 0) {                                 // leaves
                    gone[i] = true;
                    s.unregister(ids.get(i));
                    twin.unregister(ids.get(i));
                    heldSince.remove(ids.get(i));
                    continue;
                }
                int level = talking[i] && rnd.nextInt(8) != 0 ? loudness[i] : 100 + rnd.nextInt(28);
                Set<String> before = new HashSet<>(s.ranked(t));
                s.onLevel(s.register(ids.get(i)), level, t);
                twin.onLevel(twin.register(ids.get(i)), level, t);
                List<String> ranked = s.ranked(t);
                assertThat(ranked.size()).as("held").isLessThanOrEqualTo(n + 1);
                assertThat(new HashSet<>(twin.ranked(t))).as("same held set whatever the registration order").isEqualTo(new HashSet<>(ranked));
                for (String b : before) {
                    if (ranked.contains(b)) continue;
                    long since = heldSince.get(b);
                    boolean active = s.loudness(b, t) >= 127 - TopNAudioSelector.ACTIVE_DBOV;
                    assertThat(active && t - since < TopNAudioSelector.MIN_HOLD_MS)
                            .as("%s displaced at %d while active and held only since %d", b, t, since).isFalse();
                }
                for (String h : ranked) heldSince.putIfAbsent(h, t);
                heldSince.keySet().retainAll(ranked);
            }
            if (rnd.nextInt(10) == 0) {                                       // someone pins or unpins someone
                Set<String> p = pins.get(ids.get(rnd.nextInt(people)));
                String who = ids.get(rnd.nextInt(people));
                if (!p.remove(who)) p.add(who);
            }
            long now = t;                                                     // receivers' plans, as after each change
            List<String> ranked = s.ranked(now);
            List<String> active = ranked.stream().filter(h -> s.isActive(h, now)).toList();
            for (String r : ids) checkPlan(r, slots, pins.get(r), ranked, active, n);
        }
    }

    private static void checkPlan(String receiver, Map<String, String[]> slots, Set<String> pinned, List<String> ranked,
                                  List<String> active, int n) {
        String[] current = slots.get(receiver);
        String[] next = AudioSlotPlan.plan(current, n, ranked, active, receiver, pinned);
        List<String> carried = Arrays.stream(next).filter(x -> x != null).toList();
        assertThat(next).hasSameSizeAs(current);
        assertThat(carried.size()).as("at most n").isLessThanOrEqualTo(n);
        assertThat(new HashSet<>(carried)).as("no one twice").hasSize(carried.size());
        assertThat(carried).as("never itself").doesNotContain(receiver);
        for (String c : carried) assertThat(ranked.contains(c) || pinned.contains(c)).as("%s held or pinned", c).isTrue();
        List<String> pins = pinned.stream().filter(p -> !p.equals(receiver)).sorted().limit(Math.min(n, current.length)).toList();
        assertThat(carried).as("pinned always in").containsAll(pins);
        for (int i = 0; i < current.length; i++) {
            String was = current[i];
            if (was != null && carried.contains(was)) assertThat(next[i]).as("%s keeps slot %d", was, i).isEqualTo(was);
        }
        for (int i = Math.min(n, current.length); i < next.length; i++) assertThat(next[i]).as("slots beyond n stay free").isNull();
        assertThat(AudioSlotPlan.plan(current, n, ranked, active, receiver, pinned)).as("deterministic").containsExactly(next);
        long room = Math.min(n, current.length) - pins.size();
        long talkersWaiting = active.stream().filter(x -> !x.equals(receiver) && !pins.contains(x)).count();
        long talkersHeard = carried.stream().filter(x -> active.contains(x) && !pins.contains(x)).count();
        assertThat(talkersHeard).as("a talker is never left out for someone silent").isEqualTo(Math.min(room, talkersWaiting));
        slots.put(receiver, next);
    }
}
