package dev.parley.controller.aoi;

/**
 * One participant's position rate limit, latest wins: a position at most every {@code intervalNanos} is applied at
 * once; one that comes sooner is held until the interval has passed, and a newer one replaces it (the replaced one
 * is dropped). So the last position a client sends is always applied, at most one interval late. Time is passed
 * in; the caller locks.
 */
public final class PositionGate {
    /** What became of an offered position. */
    public enum Decision {
        /** apply it now */
        APPLY,
        /** held: the caller schedules {@link #release} at {@link #releaseAtNanos()} */
        HELD,
        /** held, replacing a held one (that one is dropped; a release is already scheduled) */
        REPLACED
    }

    private final long intervalNanos;
    private long lastAppliedNanos;
    private boolean appliedOnce;
    private Position held;

    public PositionGate(long intervalNanos) {
        this.intervalNanos = intervalNanos;
    }

    public Decision offer(long nowNanos, Position p) {
        if (held != null) {
            held = p;
            return Decision.REPLACED;
        }
        if (!appliedOnce || nowNanos - lastAppliedNanos >= intervalNanos) {
            appliedOnce = true;
            lastAppliedNanos = nowNanos;
            return Decision.APPLY;
        }
        held = p;
        return Decision.HELD;
    }

    /** When the held position may be applied (nanoTime). */
    public long releaseAtNanos() {
        return lastAppliedNanos + intervalNanos;
    }

    /** The held position to apply now (null if none); the interval starts again. */
    public Position release(long nowNanos) {
        Position p = held;
        held = null;
        if (p != null) {
            lastAppliedNanos = Math.max(nowNanos, releaseAtNanos());
        }
        return p;
    }
}
