package dev.parley.e2e.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * A removed participant never gets media after the removal's {@code applied}, and nobody gets its media: every
 * window that starts later than {@code applied_at} + slack and involves the removed participant, as receiver or as
 * sender, must carry no packet. (The removed load participant keeps its links up and keeps sending, like a client
 * that ignores the removal.) Windows of a participant are kept from the moment its removal is issued
 * ({@link #watch}) until {@code applied} is known ({@link #removed}), then judged, and later ones as they come.
 */
final class RemovedGetsNoMedia extends Invariant {
    private final Map<String, Long> appliedWallMs = new ConcurrentHashMap<>();
    private final Map<String, List<MediaWindow>> buffered = new ConcurrentHashMap<>();
    private final LongSupplier slackMs;

    RemovedGetsNoMedia(LongSupplier slackMs) {
        super("removed participant gets no media after applied");
        this.slackMs = slackMs;
    }

    /** The removal of {@code pid} was issued: keep its windows until applied is known. */
    void watch(String meetingId, String pid) {
        buffered.putIfAbsent(meetingId + "/" + pid, new ArrayList<>());
    }

    /** The removal is applied since {@code appliedAtWallMs}: judge what was kept and everything later. */
    synchronized void removed(String meetingId, String pid, long appliedAtWallMs) {
        String k = meetingId + "/" + pid;
        appliedWallMs.put(k, appliedAtWallMs);
        List<MediaWindow> kept = buffered.remove(k);
        if (kept != null) for (MediaWindow w : kept) judge(w, pid, appliedAtWallMs);
    }

    @Override
    synchronized void window(MediaWindow w) {
        for (String who : new String[] {w.sub(), w.pub()}) {
            String k = w.meetingId() + "/" + who;
            Long applied = appliedWallMs.get(k);
            if (applied != null) {
                judge(w, who, applied);
                continue;
            }
            List<MediaWindow> b = buffered.get(k);
            if (b != null && b.size() < 100_000) b.add(w);
        }
    }

    private void judge(MediaWindow w, String who, long applied) {
        if (w.fromWallMs() <= applied + slackMs.getAsLong()) return;
        check(w.packets() == 0, () -> w.packets() + " packets " + w.pub() + " -> " + w.sub() + " in meeting " + w.meetingId()
            + ", " + (w.fromWallMs() - applied) + " ms after the removal of " + who + " was applied");
    }
}
