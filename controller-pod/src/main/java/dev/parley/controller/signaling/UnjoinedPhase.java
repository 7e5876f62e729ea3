package dev.parley.controller.signaling;

import dev.parley.controller.config.ParleyConfig;
import io.micronaut.http.HttpRequest;
import io.micronaut.websocket.CloseReason;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The bounds on a socket that has not joined yet: it must join within the join timeout counted from its opening,
 * however much else it sends (pings keep only joined sockets alive), and its source address may hold only so many
 * unjoined sockets ({@link UnjoinedSockets}).
 */
@Singleton
public final class UnjoinedPhase {
    private static final Logger LOG = LoggerFactory.getLogger(UnjoinedPhase.class);
    /** A socket that has not joined within {@code PARLEY_SIGNALING_JOIN_TIMEOUT_MILLIS} of its opening. */
    static final CloseReason JOIN_TIMEOUT = new CloseReason(4408, "join_timeout");
    /** Refused at opening: its source address holds {@code PARLEY_SIGNALING_MAX_UNJOINED_PER_SOURCE} unjoined sockets. */
    static final CloseReason TOO_MANY_UNJOINED = new CloseReason(4429, "too_many_unjoined");

    private final UnjoinedSockets counts;
    private final ScheduledExecutorService timers;
    private final long joinTimeoutNanos;

    public UnjoinedPhase(ParleyConfig cfg, SignalingExecutors executors) {
        this.counts = new UnjoinedSockets(cfg.signalingMaxUnjoinedPerSource());
        this.timers = executors.timers;
        this.joinTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(cfg.signalingJoinTimeoutMillis());
    }

    /**
     * A socket opened: it takes a slot of its source and gets its join deadline. False when its source holds the
     * maximum already (the caller refuses it with {@link #TOO_MANY_UNJOINED}).
     */
    boolean opened(Conn c, HttpRequest<?> request) {
        String source = source(request);
        if (!counts.admit(c, source)) {
            LOG.debug("socket from {} refused: too many unjoined sockets", source);
            return false;
        }
        c.joinDeadline = timers.schedule(() -> {
            if (!c.joined() && c.session.isOpen()) {
                c.session.close(JOIN_TIMEOUT);
            }
        }, joinTimeoutNanos, TimeUnit.NANOSECONDS);
        return true;
    }

    /** The socket no longer counts as unjoined: it joined or closed. */
    void ended(Conn c) {
        counts.release(c);
        Future<?> deadline = c.joinDeadline;
        if (deadline != null) {
            deadline.cancel(false);
        }
    }

    /** Closes the unjoined sockets past their bound whose own deadline never ran (their open callback did not). */
    void sweep(Iterable<Conn> conns) {
        long now = System.nanoTime();
        for (Conn c : conns) {
            if (!c.joined() && now - c.openedNanos > joinTimeoutNanos) {
                c.session.close(JOIN_TIMEOUT);
            }
        }
    }

    /** The peer address of the socket's TCP connection (behind a proxy: the proxy's). */
    private static String source(HttpRequest<?> request) {
        InetSocketAddress a = request.getRemoteAddress();
        return a == null || a.getAddress() == null ? String.valueOf(a) : a.getAddress().getHostAddress();
    }
}
