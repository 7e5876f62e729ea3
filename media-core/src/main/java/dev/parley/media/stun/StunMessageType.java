package dev.parley.media.stun;

/**
 * The 14-bit message type interleaves a 12-bit method with the 2 class bits (RFC 8489 §5):
 * {@code M11..M7 C1 M6..M4 C0 M3..M0}.
 */
public final class StunMessageType {
    private StunMessageType() {
    }

    public static int of(int method, StunClass cls) {
        int c = cls.bits;
        return (method & 0x000F) | ((method & 0x0070) << 1) | ((method & 0x0F80) << 2)
                | ((c & 0b01) << 4) | ((c & 0b10) << 7);
    }

    public static int method(int type) {
        return (type & 0x000F) | ((type & 0x00E0) >> 1) | ((type & 0x3E00) >> 2);
    }

    public static StunClass messageClass(int type) {
        return StunClass.ofBits(((type >> 4) & 0b01) | ((type >> 7) & 0b10));
    }
}
