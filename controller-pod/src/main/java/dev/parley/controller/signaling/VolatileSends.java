package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.JsonBody;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Set;
import java.util.UUID;

/**
 * Volatile events (speakers, quality, SFU hints, interest sets): encoded once per event and written straight to
 * each socket, not through its serial executor, so they never wait behind reliable events or a catch-up read from
 * the log. A slow reader's excess waits in its {@link VolatileOutbox}, which drops the oldest waiting messages first
 * (counted in {@code parley_signaling_volatile_dropped_total}). Sent only after the socket's {@code joined}.
 */
final class VolatileSends {
    private static final Logger LOG = LoggerFactory.getLogger(VolatileSends.class);
    private final Counter dropped;

    VolatileSends(MeterRegistry meters) {
        dropped = meters.counter("parley_signaling_volatile_dropped_total");
    }

    /**
     * {@code event} to the sockets of {@code sockets} (of {@code participantId} only, unless null), except those
     * {@code skip} says need not have it (a paged socket and a hint about someone it does not watch).
     */
    void send(Set<Conn> sockets, String participantId, ObjectNode event, java.util.function.Predicate<Conn> skip) {
        ObjectNode msg = JsonBody.obj();
        msg.put("type", "event");
        ObjectNode ev = msg.putObject("event");
        ev.setAll(event);
        ev.put("volatile", true);
        String text = msg.toString();
        UUID only = participantId == null ? null : uuidOrNull(participantId);
        if (participantId != null && only == null) return;      // no socket belongs to a participant id that is no UUID
        for (Conn c : sockets) {
            // compared as UUIDs: a meeting of 1,000 sockets gets ~1,000 per-participant events a second, and
            // formatting every socket's id for each of them was the controller's top cost in bench/large's storm
            if (c.live && (only == null || only.equals(c.participantId)) && !skip.test(c)) {
                send(c, text);
            }
        }
    }

    private static UUID uuidOrNull(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException notUuid) {
            return null;
        }
    }

    private void send(Conn c, String text) {
        if (!c.session.isOpen()) {
            return;
        }
        VolatileOutbox.Offer offer = c.volatileOutbox.offer(text);
        if (offer == VolatileOutbox.Offer.WAITS_OLDEST_DROPPED) {
            dropped.increment();
        }
        if (offer == VolatileOutbox.Offer.SEND_NOW) {
            write(c, text);
        }
    }

    /** Writes one message; when the write ends, the next waiting one of the socket goes (the same in-flight slot). */
    private void write(Conn c, String text) {
        for (String next = text; next != null; ) {
            try {
                c.session.sendAsync(next).whenComplete((r, t) -> {
                    String following = c.volatileOutbox.completed();
                    if (following != null) write(c, following);
                });
                return;
            } catch (RuntimeException ex) {
                LOG.debug("volatile send failed: {}", ex.toString());
                next = c.volatileOutbox.completed();
            }
        }
    }
}
