package dev.parley.sfu.bwe;

/** Where the estimate comes from. */
public enum EstimatorMode {
    /** No feedback of any kind yet: the start bitrate. */
    STARTUP,
    /** Send-side estimation from transport-wide-cc feedback (the normal case with browsers). */
    TRANSPORT_CC,
    /** The receiver's own REMB value (receivers that did not negotiate transport-cc). */
    REMB
}
