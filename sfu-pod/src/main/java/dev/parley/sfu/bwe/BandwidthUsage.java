package dev.parley.sfu.bwe;

/** The over-use detector's hypothesis about the bottleneck queue (GCC section 5.4). */
public enum BandwidthUsage {
    /** Queue is stable: the delay-based controller may increase. */
    NORMAL,
    /** Queue is growing: we send more than the path carries, decrease now. */
    OVERUSING,
    /** Queue is draining: hold the rate so the queue can empty before increasing again. */
    UNDERUSING
}
