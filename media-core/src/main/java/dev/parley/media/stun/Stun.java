package dev.parley.media.stun;

import io.netty.buffer.ByteBuf;

/** Wire constants and the cheap demultiplexing checks a socket handler runs on every datagram. */
public final class Stun {
    public static final int MAGIC_COOKIE = 0x2112A442;
    public static final int HEADER_LENGTH = 20;
    public static final int TRANSACTION_ID_LENGTH = 12;
    /** CRC-32 of the message is XORed with "STUN" so a FINGERPRINT never matches another protocol's CRC. */
    public static final int FINGERPRINT_XOR = 0x5354554E;

    private Stun() {
    }

    /**
     * True if the readable bytes look like a STUN message: top two bits zero, the magic cookie, a length that is a
     * multiple of four and fits. Does not validate attributes; RFC 7983 demultiplexing uses the first byte only,
     * this is stricter so RTP/DTLS/ChannelData never reach the STUN decoder.
     */
    public static boolean isStun(ByteBuf buf) {
        int r = buf.readerIndex();
        if (buf.readableBytes() < HEADER_LENGTH) {
            return false;
        }
        int first = buf.getUnsignedByte(r);
        if ((first & 0xC0) != 0) {
            return false;
        }
        int length = buf.getUnsignedShort(r + 2);
        return buf.getInt(r + 4) == MAGIC_COOKIE && (length & 3) == 0 && HEADER_LENGTH + length <= buf.readableBytes();
    }

    /** Pads a value length up to the next multiple of four (attributes and ChannelData over streams are 4-aligned). */
    public static int pad4(int length) {
        return (length + 3) & ~3;
    }
}
