package dev.parley.controller.signaling;

import java.util.ArrayDeque;

/**
 * One socket's volatile messages on their way out: at most {@link #IN_FLIGHT} handed to the transport at once, the
 * rest wait here in order and go as earlier writes complete; past {@link #WAITING} the <em>oldest</em> waiting one is
 * dropped. The newest message of a kind (an interest set, a slot map, an e2ee key envelope) is the one a client
 * needs, so a slow reader loses old ones first and is never left on a stale state for good, which dropping the
 * newest (the previous rule) did. Thread-safe: offers come from any thread, completions from the transport's.
 */
final class VolatileOutbox {
    /** Messages one socket may have in the transport, not yet written. */
    static final int IN_FLIGHT = 64;
    /** Messages that may wait behind those; beyond, the oldest waiting is dropped. */
    static final int WAITING = 256;

    /** What became of an offered message. */
    enum Offer { SEND_NOW, WAITS, WAITS_OLDEST_DROPPED }

    private final ArrayDeque<String> waiting = new ArrayDeque<>();
    private int inFlight;

    /** {@link Offer#SEND_NOW}: the caller sends {@code text} now and calls {@link #completed()} when the write ends. */
    synchronized Offer offer(String text) {
        if (inFlight < IN_FLIGHT && waiting.isEmpty()) {
            inFlight++;
            return Offer.SEND_NOW;
        }
        waiting.addLast(text);
        if (waiting.size() > WAITING) {
            waiting.removeFirst();
            return Offer.WAITS_OLDEST_DROPPED;
        }
        return Offer.WAITS;
    }

    /** A write ended (written or failed): the next waiting message to send now, or null. */
    synchronized String completed() {
        String next = waiting.pollFirst();
        if (next == null) inFlight = Math.max(0, inFlight - 1);   // else its slot passes to the next message
        return next;
    }

    synchronized int inFlight() { return inFlight; }

    synchronized int waiting() { return waiting.size(); }
}
