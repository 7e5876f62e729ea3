package dev.parley.sfu.bwe;

/** What the SFU should fill a probe cluster with. */
public enum ProbeKind {
    /** RTX retransmissions of recently sent packets: useful bytes, needs RTX negotiated with the subscriber. */
    RTX,
    /** Padding-only RTP packets (on the RTX SSRC when available): always possible, carries nothing. */
    PADDING
}
