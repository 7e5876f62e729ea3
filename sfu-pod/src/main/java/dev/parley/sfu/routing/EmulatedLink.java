package dev.parley.sfu.routing;

import dev.parley.sfu.quality.LinkEmulator;
import io.netty.channel.EventLoop;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * TEST ONLY (enabled per subscriber through {@code POST /internal/v1/test/link}, which exists only with
 * {@code PARLEY_SFU_TEST_HOOKS=true}): shapes the RTP the SFU sends to one subscriber as if it crossed a
 * {@link LinkEmulator} path (capacity with a drop-tail queue, delay, random loss). Each packet is copied
 * (plaintext, before SRTP) and handed to the subscriber's transport at its emulated arrival time, in order,
 * so SRTP sequence and the browser's transport-cc arrival times follow the emulated path. Copies per packet:
 * this is a test tool, never on in production.
 */
final class EmulatedLink {
    /** SRTP adds this much (HMAC-SHA1-80 tag) to what the emulator is offered. */
    private static final int SRTP_TAG = 10;

    /** Room after the packet for SRTP to append its tag in place. */
    private static final int TAIL_ROOM = 32;

    private record Pending(byte[] packet, int length, long dueNanos) {}

    final LinkEmulator emulator;
    private final Participant subscriber;
    private final EventLoop loop;
    /** Flushes the media sockets' batched writes (a scheduled drain is not inside a read burst). */
    private final Runnable flush;
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private final long baseNanos = System.nanoTime();
    private boolean scheduled;
    private boolean closed;

    EmulatedLink(Participant subscriber, EventLoop loop, Runnable flush, long capacityBps, long delayMicros, double loss,
                 long maxQueueMicros) {
        this.subscriber = subscriber;
        this.loop = loop;
        this.flush = flush;
        this.emulator = new LinkEmulator(capacityBps, delayMicros, maxQueueMicros, loss, 42);
    }

    /** Wire size the emulator and the estimator count for a plaintext RTP packet of {@code len} bytes. */
    static int wireSize(int len) { return len + SRTP_TAG; }

    /** Offers a packet at {@code now} (System.nanoTime); false when the emulated path dropped it. */
    boolean offer(byte[] b, int off, int len, long now) {
        long arrival = emulator.send((now - baseNanos) / 1000, wireSize(len));
        if (arrival == LinkEmulator.DROPPED) return false;
        byte[] copy = new byte[len + TAIL_ROOM];
        System.arraycopy(b, off, copy, 0, len);
        queue.add(new Pending(copy, len, baseNanos + arrival * 1000));
        if (!scheduled) schedule(now);
        return true;
    }

    void close() {
        closed = true;
        queue.clear();
    }

    private void schedule(long now) {
        Pending head = queue.peek();
        if (head == null || closed) { scheduled = false; return; }
        scheduled = true;
        loop.schedule(this::drain, Math.max(0, head.dueNanos - now), TimeUnit.NANOSECONDS);
    }

    private void drain() {
        long now = System.nanoTime();
        var t = subscriber.subscribe;
        Pending p;
        while ((p = queue.peek()) != null && p.dueNanos <= now) {
            queue.poll();
            if (t != null && t.connected()) t.sendRtp(p.packet, 0, p.length);
        }
        flush.run();
        schedule(now);
    }
}
