package dev.parley.media.stun;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Feeds arbitrary bytes to every decoder entry point: the only exception allowed is {@link StunParseException}
 * (Jazzer fails on any other, and on a hang). In the default build this replays the seed corpus under
 * {@code StunDecoderFuzzTestInputs/}; run with {@code JAZZER_FUZZ=1} to fuzz.
 */
class StunDecoderFuzzTest {
    private final StunMessage view = new StunMessage();
    private final StunMessage.StunAddress addr = new StunMessage.StunAddress();

    @FuzzTest(maxDuration = "30s")
    void decode(byte[] data) {
        ByteBuf buf = Unpooled.wrappedBuffer(data);
        Stun.isStun(buf);
        try {
            StunMessage m = view.wrap(buf);
            m.method();
            m.messageClass();
            for (int i = 0; i < m.attributeCount(); i++) {
                switch (m.attributeType(i)) {
                    case StunAttribute.XOR_MAPPED_ADDRESS, StunAttribute.XOR_PEER_ADDRESS,
                            StunAttribute.XOR_RELAYED_ADDRESS -> m.readAddress(i, true, addr);
                    case StunAttribute.MAPPED_ADDRESS -> m.readAddress(i, false, addr);
                    default -> {
                    }
                }
            }
            m.string(StunAttribute.USERNAME);
            m.errorCode();
            m.unknownAttributes();
            m.channelNumber();
            m.requestedTransport();
            m.uint32(StunAttribute.LIFETIME, 0);
            m.uint64(StunAttribute.ICE_CONTROLLING, 0);
            m.verifyFingerprint();
            m.verifyIntegrity(new byte[] {1});
            m.verifyIntegritySha256(new byte[] {1});
        } catch (StunParseException expected) {
            // declared failure: fine
        }
        try {
            if (ChannelData.isChannelData(buf)) {
                ChannelData.validate(buf);
            }
        } catch (StunParseException expected) {
            // declared failure: fine
        }
    }
}
