package dev.parley.turn.server;

import dev.parley.media.stun.ChannelData;
import dev.parley.media.stun.Stun;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * Splits a TCP/TLS byte stream into STUN messages and ChannelData frames (RFC 8656 §12.5): the first two bits tell
 * which; STUN carries its length in the header, ChannelData is padded to a multiple of four on streams. Anything
 * else means the stream is out of sync or not TURN: the connection is closed (counted by the caller).
 * Emits retained slices of exactly the message (ChannelData: header + data, without the padding).
 */
public final class StreamFrameDecoder extends ByteToMessageDecoder {
    /** Raised (as a user event) before closing a connection that sent bytes that are neither STUN nor ChannelData. */
    public static final Object GARBAGE = new Object();
    /** STUN message type of a ConnectionBind request (RFC 6062): what follows it may be raw relayed bytes. */
    private static final int CONNECTION_BIND_REQUEST = 0x000B;
    private boolean paused;

    /**
     * Decodes again after a ConnectionBind that failed. After a ConnectionBind request the decoder stops, so that
     * bytes the client sends after it stay undecoded: if the bind succeeds the decoder is removed and hands them on
     * as they are (the connection is then a plain byte pipe to the peer).
     */
    public void resume() {
        paused = false;
    }

    /** True if {@code frame} (at its reader index) has the message type of a ConnectionBind request. */
    static boolean isConnectionBind(ByteBuf frame) {
        return frame.readableBytes() >= 2 && frame.getUnsignedShort(frame.readerIndex()) == CONNECTION_BIND_REQUEST;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (!paused && in.readableBytes() >= 4) {
            int r = in.readerIndex();
            int first = in.getUnsignedShort(r);
            int len = in.getUnsignedShort(r + 2);
            int frame;
            int consumed;
            if (ChannelData.isLegacyValidChannel(first)) {
                frame = ChannelData.HEADER_LENGTH + len;
                consumed = ChannelData.streamFrameLength(len);
            } else if ((first & 0xC000) == 0 && (len & 3) == 0) {
                frame = Stun.HEADER_LENGTH + len;
                consumed = frame;
            } else {
                in.skipBytes(in.readableBytes());
                ctx.fireUserEventTriggered(GARBAGE);
                ctx.close();
                return;
            }
            if (in.readableBytes() < consumed) {
                return;
            }
            out.add(in.retainedSlice(r, frame));
            in.skipBytes(consumed);
            if (first == CONNECTION_BIND_REQUEST) {
                paused = true;
            }
        }
    }
}
