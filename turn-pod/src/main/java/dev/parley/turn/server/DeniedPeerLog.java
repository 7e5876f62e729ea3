package dev.parley.turn.server;

import dev.parley.media.stun.StunMessage;
import dev.parley.turn.allocation.Allocation;
import dev.parley.turn.metrics.TurnMetrics.PeerPath;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Logs refused peers — path, peer endpoint, client address, participant id; never usernames, passwords, nonces or
 * keys — at most one line per second (the metric counts every refusal), so a client spraying peers cannot flood the
 * log. Lines left out are counted in the next one.
 */
final class DeniedPeerLog {
    private static final Logger LOG = LoggerFactory.getLogger(DeniedPeerLog.class);
    private static final long INTERVAL_NANOS = 1_000_000_000L;
    static final String PARTICIPANT_ID = "participant_id";
    private final AtomicLong nextAllowedNanos = new AtomicLong(System.nanoTime());
    private final LongAdder suppressed = new LongAdder();

    void denied(PeerPath path, StunMessage.StunAddress peer, Allocation alloc) {
        long now = System.nanoTime();
        long next = nextAllowedNanos.get();
        if (now - next < 0 || !nextAllowedNanos.compareAndSet(next, now + INTERVAL_NANOS)) {
            suppressed.increment();
            return;
        }
        long more = suppressed.sumThenReset();
        // the participant id from the verified TURN REST username ({expiry}:{participant_id}) as a field too
        MDC.put(PARTICIPANT_ID, alloc.participant());
        try {
            LOG.warn("peer refused: path={} peer={} client={} participant={}{}", path.name().toLowerCase(),
                    endpoint(peer), alloc.client().remote(), alloc.participant(),
                    more > 0 ? " (" + more + " more refusals not logged)" : "");
        } finally {
            MDC.remove(PARTICIPANT_ID); // the event loop's next line is another client's
        }
    }

    private static String endpoint(StunMessage.StunAddress a) {
        try {
            InetAddress ip = InetAddress.getByAddress(a.address());
            String h = ip.getHostAddress();
            return (ip instanceof java.net.Inet6Address ? "[" + h + "]" : h) + ":" + a.port;
        } catch (UnknownHostException e) {
            return "(malformed):" + a.port;
        }
    }
}
