package dev.parley.media.stun;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/** Hex as the RFCs print it (spaces, line breaks) to bytes. */
final class Hex {
    private Hex() {
    }

    static byte[] bytes(String s) {
        String d = s.replaceAll("[^0-9a-fA-F]", "");
        byte[] out = new byte[d.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(d.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    static ByteBuf buf(String s) {
        return Unpooled.wrappedBuffer(bytes(s));
    }

    static byte[] toBytes(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), out);
        return out;
    }
}
