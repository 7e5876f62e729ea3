package dev.parley.controller.e2ee;

import jakarta.inject.Singleton;

import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The identity public keys announced in each meeting this pod relays for, and the newest batch sequence of each
 * sender (replay check). Memory only: a public key is no secret but has no business in PostgreSQL, and after an
 * owner change every client announces its key again when its socket resumes. A meeting is forgotten when a read
 * finds no member left, or after a day without any key message (it ended).
 */
@Singleton
public class Identities {
    private final Map<UUID, Map<UUID, String>> keys = new ConcurrentHashMap<>();
    private final Map<UUID, Map<UUID, Long>> lastSeq = new ConcurrentHashMap<>();
    /** Meeting → when a key message last came (ms): meetings quiet for a day are forgotten (they ended). */
    private final Map<UUID, Long> touched = new ConcurrentHashMap<>();
    private volatile long lastSweepMillis = System.currentTimeMillis();
    static final long FORGET_AFTER_MILLIS = 24 * 3600_000L;

    /** Stores (or replaces) a participant's key. */
    void put(UUID meetingId, UUID participantId, String publicKey) {
        long now = System.currentTimeMillis();
        touched.put(meetingId, now);
        if (now - lastSweepMillis > 60_000) {
            lastSweepMillis = now;
            touched.forEach((m, at) -> {
                if (now - at > FORGET_AFTER_MILLIS) {
                    forget(m);
                }
            });
        }
        keys.computeIfAbsent(meetingId, k -> new ConcurrentHashMap<>()).put(participantId, publicKey);
    }

    /** The keys of {@code members} (participants that departed are forgotten here). */
    Map<UUID, String> of(UUID meetingId, Set<UUID> members) {
        Map<UUID, String> m = keys.get(meetingId);
        if (m == null) {
            return Map.of();
        }
        m.keySet().retainAll(members);
        if (members.isEmpty()) {
            forget(meetingId);
        }
        lastSeq.getOrDefault(meetingId, Map.of()).keySet().retainAll(members);
        return Map.copyOf(m);
    }

    /**
     * Accepts {@code seq} as the sender's next batch when it is above every earlier one (a replayed or reordered
     * batch is refused). Atomic per sender.
     */
    boolean advance(UUID meetingId, UUID sender, long seq) {
        touched.put(meetingId, System.currentTimeMillis());
        boolean[] ok = new boolean[1];
        lastSeq.computeIfAbsent(meetingId, k -> new ConcurrentHashMap<>()).compute(sender, (k, last) -> {
            ok[0] = last == null || seq > last;
            return ok[0] ? Long.valueOf(seq) : last;
        });
        return ok[0];
    }

    /** The meeting ended or moved away: forget it. */
    public void forget(UUID meetingId) {
        keys.remove(meetingId);
        lastSeq.remove(meetingId);
        touched.remove(meetingId);
    }
}
