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
        /** A run of consecutive coalescible events of one epoch and its encoded delta. */
        void run(UUID meetingId, List<ControlEvent> run, String delta);

        /** Events delivered as they are. */
        void events(UUID meetingId, List<ControlEvent> events);
    }

    private static final Comparator<ControlEvent> ORDER =
            Comparator.comparingLong(ControlEvent::epoch).thenComparingLong(ControlEvent::seq);

    private static final class Window {
        final TreeSet<ControlEvent> held = new TreeSet<>(ORDER);
        boolean timerSet;
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
                    if (!w.timerSet) {
                        w.timerSet = true;
                        timers.schedule(() -> flush(meetingId, w), RosterCoalescer.WINDOW_MILLIS, TimeUnit.MILLISECONDS);
                    }
                } else {
                    flushHeld(meetingId, w); // older held events first
                    direct.add(e);
                }
            }
            if (!direct.isEmpty()) {
                sink.events(meetingId, direct);
            }
        }
    }

    /** The meeting's sockets are gone: forget what it held. */
    void forget(UUID meetingId) {
        windows.remove(meetingId);
    }

    private void flush(UUID meetingId, Window w) {
        synchronized (w) {
            w.timerSet = false;
            flushHeld(meetingId, w);
        }
    }

    private void flushHeld(UUID meetingId, Window w) {
        List<ControlEvent> run = new ArrayList<>();
        for (ControlEvent e : w.held) {
            ControlEvent prev = run.isEmpty() ? null : run.get(run.size() - 1);
            if (prev != null && (prev.epoch() != e.epoch() || prev.seq() + 1 != e.seq())) {
                emit(meetingId, run);
                run = new ArrayList<>();
            }
            run.add(e);
        }
        if (!run.isEmpty()) {
            emit(meetingId, run);
        }
        w.held.clear();
    }

    private void emit(UUID meetingId, List<ControlEvent> run) {
        sink.run(meetingId, run, encode(run));
    }

    /** One delta for consecutive events: each participant's changes merged, in order of first change. */
    static String encode(List<ControlEvent> run) {
        Map<String, RosterChange> delta = new LinkedHashMap<>();
        for (ControlEvent e : run) {
            delta.merge(e.payload().path("participant_id").asText(), RosterEvents.change(e.type(), e.payload()),
                    RosterChange::then);
        }
        ControlEvent first = run.get(0);
        ControlEvent last = run.get(run.size() - 1);
        return new String(RosterDeltaJson.encode(first.epoch() + "." + (first.seq() - 1), last.cursor(), delta),
                StandardCharsets.UTF_8);
    }
}
