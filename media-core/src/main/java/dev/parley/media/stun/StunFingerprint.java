package dev.parley.media.stun;

import io.netty.buffer.ByteBuf;

import java.util.zip.CRC32;

/** CRC-32 (ISO-HDLC, as in zlib) over a buffer region; the JDK's CRC32 uses the CPU's CRC instructions. */
final class StunFingerprint {
    private static final ThreadLocal<CRC32> CRC = ThreadLocal.withInitial(CRC32::new);

    private StunFingerprint() {
    }

    static int crc32(ByteBuf buf, int index, int length) {
        CRC32 crc = CRC.get();
        crc.reset();
        if (buf.hasArray()) {
            crc.update(buf.array(), buf.arrayOffset() + index, length);
        } else if (buf.nioBufferCount() == 1) {
            crc.update(buf.internalNioBuffer(index, length));
        } else {
            for (int i = 0; i < length; i++) {
                crc.update(buf.getByte(index + i));
            }
        }
        return (int) crc.getValue();
    }
}
