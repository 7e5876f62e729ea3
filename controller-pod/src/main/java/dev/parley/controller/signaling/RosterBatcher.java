package dev.parley.controller.signaling;

import dev.parley.controller.coalesce.RosterChange;
import dev.parley.controller.coalesce.RosterCoalescer;
import dev.parley.controller.coalesce.RosterDeltaJson;
import dev.parley.controller.coalesce.RosterEvents;
import dev.parley.controller.control.ControlEvent;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Holds a meeting's joins and departures for one batch window ({@link RosterCoalescer#WINDOW_MILLIS}) and hands
 * them to the sockets as one {@code roster_delta}, encoded once per meeting and window: a join storm costs each
 * socket one message per window instead of one per join. The delta keeps the control cursor: it stands for a run
 * of consecutive events ({@code after} → {@code cursor}), and a socket not exactly at its start gets the events
 * one by one instead (with the usual gap handling). Any other event first flushes the held run, so per socket
 * the order is the cursor order; it is not held itself. Volatile messages never pass through here.
 */
final class RosterBatcher {
    /** Where runs and events go (the registry's delivery to a meeting's sockets). */
    interface Sink {
        /**
         * A run of consecutive coalescible events of one epoch: its merged changes (participant id → change, in
         * order of first change) and their encoded delta.
         */
        void run(UUID meetingId, List<ControlEvent> run, Map<String, RosterChange> changes, String delta);

        /** Events delivered as they are. */
        void events(UUID meetingId, List<ControlEvent> events);
    }

    private static final Comparator<ControlEvent> ORDER =
            Comparator.comparingLong(ControlEvent::epoch).thenComparingLong(ControlEvent::seq);

    /** Windows a held run may wait for a missing earlier event (a commit published late) before it goes anyway. */
    static final int MAX_HOLE_WAITS = 2;

    private static final class Window {
        final TreeSet<ControlEvent> held = new TreeSet<>(ORDER);
        boolean timerSet;
        /** The event expected next (after the last one handed out); epoch -1: none yet. */
        long nextEpoch = -1;
        long nextSeq;
        int holeWaits;

        void handedOut(ControlEvent e) {
            if (e.epoch() > nextEpoch || (e.epoch() == nextEpoch && e.seq() + 1 > nextSeq)) {
                nextEpoch = e.epoch();
                nextSeq = e.seq() + 1;
            }
        }
    }

    private final Map<UUID, Window> windows = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timers;
    private final Sink sink;

    RosterBatcher(ScheduledExecutorService timers, Sink sink) {
        this.timers = timers;
        this.sink = sink;
    }

    /** Committed events of a meeting, in the order one commit produced them. */
    void publish(UUID meetingId, List<ControlEvent> events) {
        Window w = windows.computeIfAbsent(meetingId, k -> new Window());
        synchronized (w) {
            List<ControlEvent> direct = new ArrayList<>();
            for (ControlEvent e : events) {
                if (RosterEvents.coalescible(e.type(), e.payload(), e.audience() == null)) {
                    if (!direct.isEmpty()) {
                        sink.events(meetingId, direct);
                        direct = new ArrayList<>();
                    }
                    w.held.add(e);
                    schedule(meetingId, w);
                } else {
                    flushHeld(meetingId, w, true); // older held events first
                    direct.add(e);
                    w.handedOut(e);
                }
            }
            if (!direct.isEmpty()) {
                sink.events(meetingId, direct);
            }
        }
    }

    private void schedule(UUID meetingId, Window w) {
        if (!w.timerSet) {
            w.timerSet = true;
            timers.schedule(() -> flush(meetingId, w), RosterCoalescer.WINDOW_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** The meeting's sockets are gone: forget what it held. */
    void forget(UUID meetingId) {
        windows.remove(meetingId);
    }

    private void flush(UUID meetingId, Window w) {
        synchronized (w) {
            w.timerSet = false;
            flushHeld(meetingId, w, false);
            if (!w.held.isEmpty()) {
                schedule(meetingId, w); // waiting for a late earlier event
            }
        }
    }

    /**
     * Hands out the held events as runs of consecutive ones. Unless {@code force}, a run that does not follow the
     * last event handed out (an earlier commit not published yet: concurrent commits finish out of order) waits
     * up to {@link #MAX_HOLE_WAITS} more windows for it, so the sockets can still take the delta instead of reading
     * the gap from the log.
     */
    private void flushHeld(UUID meetingId, Window w, boolean force) {
        List<ControlEvent> run = new ArrayList<>();
        for (java.util.Iterator<ControlEvent> it = w.held.iterator(); it.hasNext(); ) {
            ControlEvent e = it.next();
            boolean follows = run.isEmpty()
                    ? w.nextEpoch < 0 || e.epoch() != w.nextEpoch || e.seq() <= w.nextSeq
                    : run.get(run.size() - 1).epoch() == e.epoch() && run.get(run.size() - 1).seq() + 1 == e.seq();
            if (!follows) {
                if (!run.isEmpty()) {
                    emit(meetingId, w, run);
                    run = new ArrayList<>();
                }
                if (!force && w.holeWaits < MAX_HOLE_WAITS) {
                    w.holeWaits++;
                    return;
                }
            }
            run.add(e);
            it.remove();
        }
        if (!run.isEmpty()) {
            emit(meetingId, w, run);
        }
        w.holeWaits = 0;
    }

    private void emit(UUID meetingId, Window w, List<ControlEvent> run) {
        w.handedOut(run.get(run.size() - 1));
        Map<String, RosterChange> changes = merge(run);
        sink.run(meetingId, run, changes, encode(run, changes));
    }

    /** Each participant's changes of consecutive events merged, in order of first change. */
    static Map<String, RosterChange> merge(List<ControlEvent> run) {
        Map<String, RosterChange> delta = new LinkedHashMap<>();
        for (ControlEvent e : run) {
            delta.merge(e.payload().path("participant_id").asText(), RosterEvents.change(e.type(), e.payload()),
                    RosterChange::then);
        }
        return delta;
    }

    /** One delta for consecutive events. */
    static String encode(List<ControlEvent> run) {
        return encode(run, merge(run));
    }

    private static String encode(List<ControlEvent> run, Map<String, RosterChange> delta) {
        ControlEvent first = run.get(0);
        ControlEvent last = run.get(run.size() - 1);
        return new String(RosterDeltaJson.encode(first.epoch() + "." + (first.seq() - 1), last.cursor(), delta),
                StandardCharsets.UTF_8);
    }
}
