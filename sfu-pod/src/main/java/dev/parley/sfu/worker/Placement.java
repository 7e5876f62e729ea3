package dev.parley.sfu.worker;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Meeting → worker, stable for the meeting's life: a meeting seen for the first time goes to the worker with the
 * fewest transports plus placed meetings (a meeting just placed counts before its first transport exists), and
 * stays there. A meeting never spans two workers (there is no cascading between workers yet).
 *
 * <p>Entries are forgotten only when the meeting is gone from its worker <em>and</em> nobody looked it up for
 * {@link #IDLE_NANOS}: an API call that just looked the worker up (and may be about to create the meeting there)
 * keeps its entry alive, so two calls can never place one meeting on two workers.
 */
final class Placement {
    /** Much longer than an API call's wait for its worker (10 s). */
    static final long IDLE_NANOS = 60_000_000_000L;
    private static final long PRUNE_EVERY_NANOS = 10_000_000_000L;

    private static final class Entry {
        final MediaWorker worker;
        long usedAt;

        Entry(MediaWorker worker, long now) { this.worker = worker; this.usedAt = now; }
    }

    private final List<MediaWorker> workers;
    private final Map<String, Entry> entries = new HashMap<>();
    private final int[] placed;
    private long lastPrune = System.nanoTime();

    Placement(List<MediaWorker> workers) {
        this.workers = workers;
        this.placed = new int[workers.size()];
    }

    /** One lock for look-up, placement and pruning: once per API call, never on the packet path. */
    synchronized MediaWorker workerFor(String meetingId) {
        long now = System.nanoTime();
        Entry e = entries.get(meetingId);
        if (e == null) {
            if (now - lastPrune > PRUNE_EVERY_NANOS) prune(now);
            MediaWorker w = leastLoaded();
            e = new Entry(w, now);
            entries.put(meetingId, e);
            placed[w.index()]++;
        }
        e.usedAt = now;
        return e.worker;
    }

    synchronized Optional<MediaWorker> find(String meetingId) {
        Entry e = entries.get(meetingId);
        if (e == null) return Optional.empty();
        e.usedAt = System.nanoTime();
        return Optional.of(e.worker);
    }

    synchronized int placedOn(int worker) { return placed[worker]; }

    /** Lowest transports + placed meetings; ties go to the lower index. Caller holds the lock. */
    private MediaWorker leastLoaded() {
        MediaWorker best = null;
        long bestLoad = Long.MAX_VALUE;
        for (MediaWorker w : workers) {
            long load = (long) w.transports() + placed[w.index()];
            if (load < bestLoad) { best = w; bestLoad = load; }
        }
        return best;
    }

    /** Forgets meetings that ended on their worker and were not looked up for a while. Caller holds the lock. */
    private void prune(long now) {
        lastPrune = now;
        entries.entrySet().removeIf(en -> {
            Entry e = en.getValue();
            boolean gone = now - e.usedAt > IDLE_NANOS && !e.worker.router().meetings().containsKey(en.getKey());
            if (gone) placed[e.worker.index()]--;
            return gone;
        });
    }
}
