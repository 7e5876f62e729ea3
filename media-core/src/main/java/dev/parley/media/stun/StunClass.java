package dev.parley.media.stun;

/** The four STUN message classes (RFC 8489 §5), encoded in bits C1 and C0 of the message type. */
public enum StunClass {
    REQUEST(0b00),
    INDICATION(0b01),
    SUCCESS_RESPONSE(0b10),
    ERROR_RESPONSE(0b11);

    private static final StunClass[] BY_BITS = values();

    /** The two class bits C1C0 as an integer 0..3. */
    public final int bits;

    StunClass(int bits) {
        this.bits = bits;
    }

    static StunClass ofBits(int bits) {
        return BY_BITS[bits & 0b11];
    }
}
