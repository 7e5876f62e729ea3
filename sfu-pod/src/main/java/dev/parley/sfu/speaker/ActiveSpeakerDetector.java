package dev.parley.sfu.speaker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Active speaker detection from the RFC 6464 audio level header extension (0 = loudest, 127 = silence, in
 * -dBov) that browsers put on every audio packet, so the SFU never decodes audio.
 *
 * <p>Each participant has an energy score: an exponentially decaying average (time constant
 * {@value #TIME_CONSTANT_MS} ms) of per-packet loudness, where loudness maps levels from the participant's
 * speech threshold to 0 dBov onto 0..1. The threshold is {@value #NOISE_FLOOR_DBOV} dBov, or
 * {@value #ABOVE_NOISE_DB} dB above that participant's own background noise when that is louder (a fan,
 * a busy room): the noise floor follows the quietest recent level at once and drifts towards louder levels
 * by {@value #FLOOR_FALL_DB_PER_S} dB/s (from a quiet-room assumption at join), so the gaps between
 * syllables keep it at the true floor while a constant noise stops counting as speech within seconds. A cough, a keyboard click or two people saying "yes" over each
 * other moves a 1.5 s average very little; someone who keeps talking owns it within a second.
 *
 * <p>The dominant speaker changes only when (a) the challenger's score beats the current one by
 * {@value #SWITCH_RATIO}×, (b) it kept that lead for {@value #SWITCH_DELAY_MS} ms, and (c) the current one
 * has been dominant at least {@value #MIN_DWELL_MS} ms. Those three together are what keeps the speaker
 * view from flapping between two people talking in turns quickly, which viewers find worse than a short lag.
 *
 * <p>{@link #onAudioLevel} runs per audio packet and is allocation-free (participants live in array slots);
 * {@link #evaluate} runs every few hundred ms and allocates only when the list changed. One instance per
 * meeting, on one thread.
 */
public final class ActiveSpeakerDetector {

    static final double TIME_CONSTANT_MS = 1_500;
    static final int NOISE_FLOOR_DBOV = 70;
    static final double SWITCH_RATIO = 1.3;
    static final long SWITCH_DELAY_MS = 500;
    static final long MIN_DWELL_MS = 1_000;
    /** Listed as active above ENTER, dropped below LEAVE: two thresholds so the list doesn't toggle. */
    static final double ENTER_SCORE = 0.10;
    static final double LEAVE_SCORE = 0.05;
    static final int ABOVE_NOISE_DB = 6;
    static final double FLOOR_FALL_DB_PER_S = 3;
    private static final long PACKET_MS = 20;
    private static final double PACKET_WEIGHT = 1 - Math.exp(-PACKET_MS / TIME_CONSTANT_MS);

    private final int maxListed;
    private final Map<String, Integer> slotById = new HashMap<>();
    private String[] ids = new String[8];
    private double[] score = new double[8];
    private long[] lastUpdateMs = new long[8];
    private boolean[] listed = new boolean[8];
    private double[] noiseFloor = new double[8]; // quietest recent level, in dBov
    private int slots;

    private int dominant = -1;
    private long dominantSinceMs;
    private int challenger = -1;
    private long challengerSinceMs;
    private long sequence;
    private List<String> lastEmitted = List.of();

    /** @param maxListed how many speakers the list carries at most (the dominant one included) */
    public ActiveSpeakerDetector(int maxListed) {
        if (maxListed < 1) {
            throw new IllegalArgumentException("maxListed must be >= 1");
        }
        this.maxListed = maxListed;
    }

    /** Registers a participant's audio; returns the slot to pass to {@link #onAudioLevel}. Idempotent. */
    public int register(String participantId) {
        Integer existing = slotById.get(participantId);
        if (existing != null) {
            return existing;
        }
        int slot = -1;
        for (int i = 0; i < slots; i++) {
            if (ids[i] == null) {
                slot = i;
                break;
            }
        }
        if (slot < 0) {
            if (slots == ids.length) {
                grow();
            }
            slot = slots++;
        }
        ids[slot] = participantId;
        score[slot] = 0;
        lastUpdateMs[slot] = Long.MIN_VALUE;
        listed[slot] = false;
        noiseFloor[slot] = NOISE_FLOOR_DBOV + ABOVE_NOISE_DB; // assume a quiet room until shown otherwise
        slotById.put(participantId, slot);
        return slot;
    }

    public void unregister(String participantId) {
        Integer slot = slotById.remove(participantId);
        if (slot == null) {
            return;
        }
        ids[slot] = null;
        score[slot] = 0;
        listed[slot] = false;
        if (dominant == slot) {
            dominant = -1;
        }
        if (challenger == slot) {
            challenger = -1;
        }
    }

    /**
     * One audio packet's level ({@code levelDbov} 0..127 as carried in the extension; out-of-range values are
     * clamped: a bad header must not break detection for the meeting).
     */
    public void onAudioLevel(int slot, int levelDbov, long nowMs) {
        if (slot < 0 || slot >= slots || ids[slot] == null) {
            return;
        }
        int level = Math.max(0, Math.min(127, levelDbov));
        long last = lastUpdateMs[slot];
        double floor = noiseFloor[slot];
        if (level >= floor) {
            floor = level; // a quieter moment shows the background: follow it at once
        } else if (last != Long.MIN_VALUE && nowMs > last) {
            floor = Math.max(level, floor - FLOOR_FALL_DB_PER_S * (nowMs - last) / 1000.0);
        }
        noiseFloor[slot] = floor;
        double threshold = Math.min(NOISE_FLOOR_DBOV, floor - ABOVE_NOISE_DB);
        double loudness = Math.max(0, (threshold - level) / NOISE_FLOOR_DBOV);
        // A packet stands for 20 ms of audio: the time before it (a DTX gap, or jitter) decays the score as
        // silence, and the packet's own 20 ms pull it towards its loudness. So packet rate doesn't matter.
        if (last != Long.MIN_VALUE && nowMs - PACKET_MS > last) {
            score[slot] *= Math.exp(-(nowMs - PACKET_MS - last) / TIME_CONSTANT_MS);
        }
        score[slot] += PACKET_WEIGHT * (loudness - score[slot]);
        if (last == Long.MIN_VALUE || nowMs > last) {
            lastUpdateMs[slot] = nowMs;
        }
    }

    /** Current energy score of a participant (0..1), for tests and stats. */
    public double score(String participantId, long nowMs) {
        Integer slot = slotById.get(participantId);
        if (slot == null) {
            return 0;
        }
        decay(slot, nowMs);
        return score[slot];
    }

    /**
     * Position of {@code participantId} in the list {@link #evaluate} last returned (0 = dominant), -1 when not
     * in it: the allocator's speaker rank, stable between evaluations.
     */
    public int rank(String participantId) {
        return lastEmitted.indexOf(participantId);
    }

    /** Re-evaluates; returns the new list when it changed since the last returned one, else null. */
    public ActiveSpeakers evaluate(long nowMs) {
        for (int i = 0; i < slots; i++) {
            if (ids[i] != null) {
                decay(i, nowMs);
                if (!listed[i] && score[i] > ENTER_SCORE) {
                    listed[i] = true;
                } else if (listed[i] && score[i] < LEAVE_SCORE) {
                    listed[i] = false;
                }
            }
        }
        updateDominant(nowMs);
        List<String> list = buildList();
        if (list.equals(lastEmitted)) {
            return null;
        }
        lastEmitted = list;
        return new ActiveSpeakers(++sequence, list);
    }

    private void updateDominant(long nowMs) {
        if (dominant >= 0 && !listed[dominant]) {
            dominant = -1; // went quiet for long enough to leave the list: no dwell needed for silence
        }
        int best = -1;
        for (int i = 0; i < slots; i++) {
            if (ids[i] != null && listed[i] && i != dominant && (best < 0 || score[i] > score[best])) {
                best = i;
            }
        }
        if (dominant < 0) {
            if (best >= 0) {
                dominant = best;
                dominantSinceMs = nowMs;
            }
            challenger = -1;
            return;
        }
        if (best < 0 || score[best] < SWITCH_RATIO * score[dominant]) {
            challenger = -1;
            return;
        }
        if (challenger != best) {
            challenger = best;
            challengerSinceMs = nowMs;
            return;
        }
        if (nowMs - challengerSinceMs >= SWITCH_DELAY_MS && nowMs - dominantSinceMs >= MIN_DWELL_MS) {
            dominant = best;
            dominantSinceMs = nowMs;
            challenger = -1;
        }
    }

    private List<String> buildList() {
        List<Integer> others = new ArrayList<>();
        for (int i = 0; i < slots; i++) {
            if (ids[i] != null && listed[i] && i != dominant) {
                others.add(i);
            }
        }
        others.sort((a, b) -> Double.compare(score[b], score[a]));
        List<String> out = new ArrayList<>(Math.min(maxListed, others.size() + 1));
        if (dominant >= 0) {
            out.add(ids[dominant]);
        }
        for (int i = 0; i < others.size() && out.size() < maxListed; i++) {
            out.add(ids[others.get(i)]);
        }
        return out;
    }

    private void decay(int slot, long nowMs) {
        long last = lastUpdateMs[slot];
        if (last != Long.MIN_VALUE && nowMs > last) {
            score[slot] *= Math.exp(-(nowMs - last) / TIME_CONSTANT_MS);
        }
        if (last == Long.MIN_VALUE || nowMs > last) {
            lastUpdateMs[slot] = nowMs;
        }
    }

    private void grow() {
        int n = ids.length * 2;
        ids = Arrays.copyOf(ids, n);
        score = Arrays.copyOf(score, n);
        lastUpdateMs = Arrays.copyOf(lastUpdateMs, n);
        listed = Arrays.copyOf(listed, n);
        noiseFloor = Arrays.copyOf(noiseFloor, n);
    }
}
