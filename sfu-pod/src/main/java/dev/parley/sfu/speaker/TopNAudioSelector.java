package dev.parley.sfu.speaker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which speakers of a meeting are forwarded at all under top-N audio: the <em>held</em> set, at most
 * {@code n + 1} of them (one more than a receiver's slots, so a receiver who is itself held still gets n others),
 * chosen from the RFC 6464 audio level every packet carries (0 = loudest, 127 = silence, in -dBov).
 *
 * <p>Each speaker has a loudness envelope ({@code 127 - level}, in dB): it jumps up at once on a louder packet
 * (attack) and falls {@value #RELEASE_DB_PER_S} dB/s after it (release), so the gaps between syllables keep a
 * talker "active" while a finished one fades. A packet at or louder than {@value #ACTIVE_DBOV} dBov counts as
 * speech.
 *
 * <p>Entry rules, applied per packet (a rising level takes a place on its <em>first</em> loud packet, so no word
 * start is clipped):
 * <ul>
 *   <li>while the held set has room, any packet of a registered speaker takes a place (small meetings forward
 *       everyone, as before top-N);</li>
 *   <li>a loud packet replaces the weakest held speaker at once when that one is no longer active;</li>
 *   <li>it replaces an active one only when its envelope is {@value #HYSTERESIS_DB} dB above it and that one was
 *       held at least {@value #MIN_HOLD_MS} ms (hysteresis: two people talking in turns don't flap).</li>
 * </ul>
 * Ties are broken by participant id (the lexicographically larger one is weaker), so the outcome never depends on
 * registration or iteration order.
 *
 * <p>{@link #onLevel} runs per audio packet on the media thread and allocates nothing; {@link #ranked} allocates
 * and is called only when {@link #version} moved. One instance per meeting, one thread.
 */
public final class TopNAudioSelector {
    public static final int DEFAULT_N = 3;
    /** Upper bound of a meeting's {@code audio_top_n} (also the controller's validation range). */
    public static final int MAX_N = 16;
    static final int ACTIVE_DBOV = 60;
    static final double RELEASE_DB_PER_S = 20;
    static final double HYSTERESIS_DB = 6;
    static final long MIN_HOLD_MS = 1_000;
    private static final double ACTIVE_LOUDNESS = 127 - ACTIVE_DBOV;

    private int n;
    private final Map<String, Integer> slotById = new HashMap<>();
    private String[] ids = new String[8];
    private double[] envelope = new double[8];     // loudness at envelopeAt (dB above silence)
    private long[] envelopeAt = new long[8];
    private boolean[] held = new boolean[8];
    /** Per held speaker: talking, as last reported to the caller ({@link #activityChanged}). */
    private boolean[] wasActive = new boolean[8];
    private long[] heldSince = new long[8];
    private int slots, heldCount;
    private long version;

    public TopNAudioSelector(int n) { setN(n, 0); }

    /** Slots per receiver; shrinking releases the weakest held speakers at once. Returns whether the held set changed. */
    public boolean setN(int n, long nowMs) {
        if (n < 1 || n > MAX_N) throw new IllegalArgumentException("n must be within 1.." + MAX_N);
        this.n = n;
        boolean changed = false;
        while (heldCount > capacity()) {
            release(weakestHeld(nowMs));
            changed = true;
        }
        if (changed) version++;
        return changed;
    }

    public int n() { return n; }

    /** Held speakers at most: one more than a receiver's slots. */
    public int capacity() { return n + 1; }

    /** Increases with every change of the held set. */
    public long version() { return version; }

    /** Registers a speaker; returns the index to pass to {@link #onLevel}. Idempotent. */
    public int register(String participantId) {
        Integer existing = slotById.get(participantId);
        if (existing != null) return existing;
        int slot = -1;
        for (int i = 0; i < slots; i++) if (ids[i] == null) { slot = i; break; }
        if (slot < 0) {
            if (slots == ids.length) grow();
            slot = slots++;
        }
        ids[slot] = participantId;
        envelope[slot] = 0;
        envelopeAt[slot] = Long.MIN_VALUE;
        held[slot] = false;
        slotById.put(participantId, slot);
        return slot;
    }

    /** Forgets a speaker (audio unpublished, participant gone); returns whether the held set changed. */
    public boolean unregister(String participantId) {
        Integer slot = slotById.remove(participantId);
        if (slot == null) return false;
        boolean was = held[slot];
        if (was) { release(slot); version++; }
        ids[slot] = null;
        return was;
    }

    /**
     * One audio packet's level ({@code levelDbov} 0..127; out of range is clamped). Returns true when this packet
     * took the speaker into the held set, or made a held speaker start talking: then the caller re-plans its
     * receivers' slots before it forwards the packet (so the first word is not clipped).
     */
    public boolean onLevel(int slot, int levelDbov, long nowMs) {
        if (slot < 0 || slot >= slots || ids[slot] == null) return false;
        double loud = 127 - Math.max(0, Math.min(127, levelDbov));
        if (loud >= current(slot, nowMs)) { envelope[slot] = loud; envelopeAt[slot] = nowMs; }
        if (held[slot]) {
            if (wasActive[slot] || loud < ACTIVE_LOUDNESS) return false;
            wasActive[slot] = true;                                 // a held speaker starts talking
            return true;
        }
        if (heldCount < capacity()) { hold(slot, nowMs); return true; }
        if (loud < ACTIVE_LOUDNESS) return false;                   // only speech takes a place from someone
        int weakest = weakestHeld(nowMs);
        double we = current(weakest, nowMs);
        boolean replace = we < ACTIVE_LOUDNESS
                || current(slot, nowMs) >= we + HYSTERESIS_DB && nowMs - heldSince[weakest] >= MIN_HOLD_MS;
        if (!replace) return false;
        release(weakest);
        hold(slot, nowMs);
        return true;
    }

    /** Whether the speaker is in the held set. */
    public boolean isHeld(String participantId) {
        Integer s = slotById.get(participantId);
        return s != null && held[s];
    }

    /**
     * Whether a held speaker started or stopped talking since the last call (or {@link #onLevel} said so): a
     * receiver may then hear a talker instead of someone who went quiet. Called on the media timer; no allocation.
     */
    public boolean activityChanged(long nowMs) {
        boolean changed = false;
        for (int i = 0; i < slots; i++) {
            if (ids[i] == null || !held[i]) continue;
            boolean a = current(i, nowMs) >= ACTIVE_LOUDNESS;
            if (a != wasActive[i]) { wasActive[i] = a; changed = true; }
        }
        return changed;
    }

    /** Whether the speaker talks now: its envelope is at the speech threshold or above. */
    public boolean isActive(String participantId, long nowMs) {
        Integer s = slotById.get(participantId);
        return s != null && current(s, nowMs) >= ACTIVE_LOUDNESS;
    }

    /** The held speakers, loudest first (ties: participant id ascending). Allocates: call on a change only. */
    public List<String> ranked(long nowMs) {
        List<Integer> h = new ArrayList<>(heldCount);
        for (int i = 0; i < slots; i++) if (ids[i] != null && held[i]) h.add(i);
        h.sort((a, b) -> stronger(a, b, nowMs) ? -1 : 1);
        List<String> out = new ArrayList<>(h.size());
        for (int i : h) out.add(ids[i]);
        return out;
    }

    /** Envelope of a speaker now (dB above silence), 0 when unknown. */
    public double loudness(String participantId, long nowMs) {
        Integer s = slotById.get(participantId);
        return s == null ? 0 : current(s, nowMs);
    }

    private double current(int slot, long nowMs) {
        long at = envelopeAt[slot];
        if (at == Long.MIN_VALUE) return 0;
        double fall = nowMs > at ? RELEASE_DB_PER_S * (nowMs - at) / 1000.0 : 0;
        return Math.max(0, envelope[slot] - fall);
    }

    /** a is ranked before b: louder, or equally loud with the smaller id. */
    private boolean stronger(int a, int b, long nowMs) {
        double ea = current(a, nowMs), eb = current(b, nowMs);
        if (ea != eb) return ea > eb;
        return ids[a].compareTo(ids[b]) < 0;
    }

    /** The held speaker to give up first. */
    private int weakestHeld(long nowMs) {
        int w = -1;
        for (int i = 0; i < slots; i++) {
            if (ids[i] == null || !held[i]) continue;
            if (w < 0 || stronger(w, i, nowMs)) w = i;
        }
        return w;
    }

    private void hold(int slot, long nowMs) {
        held[slot] = true;
        heldSince[slot] = nowMs;
        wasActive[slot] = current(slot, nowMs) >= ACTIVE_LOUDNESS;
        heldCount++;
        version++;
    }

    private void release(int slot) {
        held[slot] = false;
        heldCount--;
    }

    private void grow() {
        int len = ids.length * 2;
        ids = Arrays.copyOf(ids, len);
        envelope = Arrays.copyOf(envelope, len);
        envelopeAt = Arrays.copyOf(envelopeAt, len);
        held = Arrays.copyOf(held, len);
        wasActive = Arrays.copyOf(wasActive, len);
        heldSince = Arrays.copyOf(heldSince, len);
    }
}
