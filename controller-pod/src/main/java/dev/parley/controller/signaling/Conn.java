package dev.parley.controller.signaling;

import io.micronaut.websocket.WebSocketSession;

import java.util.UUID;
import java.util.concurrent.Executor;

/** One signaling socket and what it is bound to after join/resume. */
final class Conn {
    final WebSocketSession session;
    final SerialExecutor tasks;
    volatile UUID meetingId;
    volatile UUID participantId;
    volatile long generation;
    volatile long epoch;
    volatile String sfuPod;
    volatile String deviceKey;
    /** When the socket opened (nanoTime): the join bound counts from here, whatever the socket sends. */
    final long openedNanos = System.nanoTime();
    volatile long lastSeenNanos = openedNanos;
    /** The source address whose unjoined slot this socket holds (null: none; guarded by this). */
    String unjoinedSource;
    /** Closes the socket if it has not joined in time (cancelled on join and close). */
    volatile java.util.concurrent.Future<?> joinDeadline;
    volatile boolean left;
    volatile long admittedAtMillis;
    volatile boolean mediaReadyRecorded;
    /** When this socket was last asked to leave a draining SFU (nanoTime; 0 = never). */
    volatile long migrationAskedNanos;
    /**
     * Accepted on a pod that did not own the meeting: control events arrive through the cross-pod fan-out,
     * and what needs the owner (offers, subscriptions, leave, the reconnect grace) goes to the owner.
     */
    volatile boolean remote;
    /** The newest epoch this socket was already told to take a snapshot for (only on the socket's executor). */
    long snapshotRequiredForEpoch;
    /** {@code joined} was sent: volatile events may go out (they do not wait on {@link #tasks}). */
    volatile boolean live;
    /** Volatile sends in the transport and waiting behind them (a slow reader loses the oldest waiting first). */
    final VolatileOutbox volatileOutbox = new VolatileOutbox();
    /** Gets the paged roster (sticky: {@link PagedRoster}). */
    volatile boolean paged;
    /** The participants a paged socket watches (its {@code roster_page}). */
    volatile dev.parley.controller.coalesce.RosterWatch watch = dev.parley.controller.coalesce.RosterWatch.NONE;
    /** A paged socket's skipped events start after this seq (-1: none pending; only on the socket's executor). */
    long skipAfter = -1;
    /** Highest control event seq delivered on this socket (epoch = {@link #epoch}). */
    long lastSeq;

    Conn(WebSocketSession session, Executor backing) {
        this.session = session;
        this.tasks = new SerialExecutor(backing);
    }

    boolean joined() {
        return participantId != null;
    }
}
