package dev.parley.media.stun;

import io.netty.buffer.ByteBuf;

/**
 * TURN ChannelData framing (RFC 8656 §12): a 2-byte channel number in 0x4000..0x4FFF, a 2-byte length and the
 * application data. Over UDP the datagram may carry padding after the data; over TCP/TLS the frame is padded to a
 * multiple of four. These helpers read and write the 4-byte header in place so the relay copies nothing twice.
 */
public final class ChannelData {
    public static final int HEADER_LENGTH = 4;
    public static final int MIN_CHANNEL = 0x4000;
    public static final int MAX_CHANNEL = 0x4FFF;
    /** RFC 5766 allowed 0x4000..0x7FFF; RFC 8656 narrowed it. Some clients (coturn's uclient) still use the old range. */
    public static final int MAX_CHANNEL_RFC5766 = 0x7FFF;

    private ChannelData() {
    }

    public static boolean isValidChannel(int channel) {
        return channel >= MIN_CHANNEL && channel <= MAX_CHANNEL;
    }

    /** Lenient check for servers that accept RFC 5766 clients: 0x4000..0x7FFF (first two bits 01). */
    public static boolean isLegacyValidChannel(int channel) {
        return channel >= MIN_CHANNEL && channel <= MAX_CHANNEL_RFC5766;
    }

    /** First-byte demux: ChannelData starts with 0b01 (RFC 7983 range 64..79). */
    public static boolean isChannelData(ByteBuf buf) {
        return buf.readableBytes() >= HEADER_LENGTH && isValidChannel(buf.getUnsignedShort(buf.readerIndex()));
    }

    /**
     * Validates the frame at the reader index and returns its data length.
     *
     * @param stream true for TCP/TLS, where the frame must be followed by padding to 4 bytes (only the unpadded data is
     *               required to be present here; the stream framer accounts for padding)
     */
    public static int validate(ByteBuf buf) throws StunParseException {
        if (buf.readableBytes() < HEADER_LENGTH) {
            throw new StunParseException("ChannelData shorter than its header");
        }
        int r = buf.readerIndex();
        int channel = buf.getUnsignedShort(r);
        if (!isValidChannel(channel)) {
            throw new StunParseException("ChannelData channel number out of range");
        }
        int length = buf.getUnsignedShort(r + 2);
        if (HEADER_LENGTH + length > buf.readableBytes()) {
            throw new StunParseException("ChannelData length runs past the packet");
        }
        return length;
    }

    /** Lenient demux (RFC 5766 range): first two bits 01 and at least a header. */
    public static boolean isLegacyChannelData(ByteBuf buf) {
        return buf.readableBytes() >= HEADER_LENGTH && (buf.getByte(buf.readerIndex()) & 0xC0) == 0x40;
    }

    public static int channel(ByteBuf buf) {
        return buf.getUnsignedShort(buf.readerIndex());
    }

    public static int dataLength(ByteBuf buf) {
        return buf.getUnsignedShort(buf.readerIndex() + 2);
    }

    /** Writes the header at the writer index; the caller then writes {@code dataLength} bytes. */
    public static void writeHeader(ByteBuf out, int channel, int dataLength) {
        out.writeShort(channel);
        out.writeShort(dataLength);
    }

    /** Writes zero padding after a frame of {@code dataLength} bytes, as required on stream transports. */
    public static void writeStreamPadding(ByteBuf out, int dataLength) {
        out.writeZero(Stun.pad4(dataLength) - dataLength);
    }

    /** Total bytes a frame occupies on a stream transport. */
    public static int streamFrameLength(int dataLength) {
        return HEADER_LENGTH + Stun.pad4(dataLength);
    }
}
