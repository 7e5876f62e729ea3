package dev.parley.e2e.chaos;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per (meeting, participant): the grant state seen at each poll. {@link #expiredThroughout} answers whether the
 * polls prove the grant was not live over a whole time span: a poll at or before its start and one at or after its
 * end say EXPIRED, and so does every poll in between (polls are ~250 ms apart and a grant lives up to 3 s, so a
 * renewal between two EXPIRED polls would show as LIVE in the second).
 *
 * <p>A poll is a request and an answer: the SFU took its snapshot somewhere between the two, which on a loaded machine
 * can be hundreds of milliseconds apart. So a poll proves "expired" from its answer on (the one before the span must
 * have been answered by the span's start) and up to its request (the one after must have been sent at or after the
 * span's end). Stamping both with the request time blamed packets sent in the last moments of a live grant whose
 * expiry the SFU's late snapshot then showed (quick run of 2026-12-07 11:57: 3 packets per pair of a just-joined
 * participant, load average 22).
 */
final class GrantTimeline {
    enum State { LIVE, EXPIRED, UNKNOWN }

    enum Verdict { EXPIRED_THROUGHOUT, NOT_PROVEN, UNDECIDED }

    /**
     * {@code nanos}: the poll's request; {@code answeredNanos}: its answer (the snapshot lies in between); {@code mark}:
     * {@link Observation#grantMark} (what the controllers last pushed).
     */
    private record Point(long nanos, long answeredNanos, State state, long mark) {
    }

    private final Map<String, Deque<Point>> points = new ConcurrentHashMap<>();
    private static final long KEEP_NANOS = 120_000_000_000L;

    void record(String meetingId, String pid, long nanos, State s) {
        record(meetingId, pid, nanos, nanos, s, 0);
    }

    void record(String meetingId, String pid, long nanos, long answeredNanos, State s) {
        record(meetingId, pid, nanos, answeredNanos, s, 0);
    }

    void record(String meetingId, String pid, long nanos, long answeredNanos, State s, long mark) {
        Deque<Point> d = points.computeIfAbsent(meetingId + "/" + pid, k -> new ArrayDeque<>());
        synchronized (d) {
            d.addLast(new Point(nanos, answeredNanos, s, mark));
            while (!d.isEmpty() && d.peekFirst().nanos < nanos - KEEP_NANOS) d.removeFirst();
        }
    }

    /** UNDECIDED while no poll at or after {@code to} exists yet. */
    Verdict expiredThroughout(String meetingId, String pid, long from, long to) {
        Deque<Point> d = points.get(meetingId + "/" + pid);
        if (d == null) return Verdict.NOT_PROVEN;
        synchronized (d) {
            Point before = null;
            boolean sawAfter = false;
            for (Iterator<Point> it = d.iterator(); it.hasNext(); ) {
                Point p = it.next();
                if (p.answeredNanos <= from) {
                    before = p;
                    continue;
                }
                if (before == null || before.state != State.EXPIRED) return Verdict.NOT_PROVEN;
                if (p.state != State.EXPIRED) return Verdict.NOT_PROVEN;
                // a push between two polls that both saw it expired may have been live in between (granted, then
                // revoked within one poll interval: a takeover meeting a pending removal)
                if (p.mark != before.mark) return Verdict.NOT_PROVEN;
                before = p;
                if (p.nanos >= to) {
                    sawAfter = true;
                    break;
                }
            }
            if (before == null || before.state != State.EXPIRED) return Verdict.NOT_PROVEN;
            return sawAfter ? Verdict.EXPIRED_THROUGHOUT : Verdict.UNDECIDED;
        }
    }
}
