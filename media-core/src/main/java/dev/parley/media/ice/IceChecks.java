package dev.parley.media.ice;

import dev.parley.media.stun.StunAttribute;
import dev.parley.media.stun.StunClass;
import dev.parley.media.stun.StunMessage;
import dev.parley.media.stun.StunMessageType;
import dev.parley.media.stun.StunMessageWriter;
import dev.parley.media.stun.StunMethod;
import dev.parley.media.stun.StunParseException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.net.InetSocketAddress;

/**
 * ICE connectivity checks (RFC 8445 §7): STUN Binding requests and responses with USERNAME, PRIORITY,
 * USE-CANDIDATE, ICE-CONTROLLING/ICE-CONTROLLED, XOR-MAPPED-ADDRESS, short-term MESSAGE-INTEGRITY and FINGERPRINT,
 * on byte arrays as the SFU's packet path and the test clients hold them. All wire work is done by the one STUN codec
 * in {@code dev.parley.media.stun}; this class only adapts arrays to it and adds ICE's rules.
 *
 * <p>One instance per thread: it reuses its message view, its writer and the buffers wrapping the caller's arrays
 * (re-wrapped only when the caller passes a different array); the codec reuses its Mac and CRC per thread. What a
 * check still allocates is small and per check, not per packet: the USERNAME string, the HMAC results and the
 * mapped address bytes. A view returned by {@link #parse} is valid until the next call on this instance.
 */
public final class IceChecks {
    public static final int BINDING_REQUEST = StunMessageType.of(StunMethod.BINDING, StunClass.REQUEST);
    public static final int BINDING_SUCCESS = StunMessageType.of(StunMethod.BINDING, StunClass.SUCCESS_RESPONSE);
    public static final int BINDING_ERROR = StunMessageType.of(StunMethod.BINDING, StunClass.ERROR_RESPONSE);
    public static final int BINDING_INDICATION = StunMessageType.of(StunMethod.BINDING, StunClass.INDICATION);
    /** RFC 8489 §14.3: USERNAME is fewer than 509 bytes. */
    public static final int MAX_USERNAME_BYTES = 508;

    private final StunMessage view = new StunMessage();
    private final StunMessageWriter writer = new StunMessageWriter();
    private byte[] inArray;
    private ByteBuf in;
    private byte[] outArray;
    private ByteBuf out;

    /**
     * Parses one STUN message occupying exactly {@code b[off, off+len)}; null if it is not a well-formed message, or
     * its ICE attributes are malformed (USERNAME too long, PRIORITY or ICE-CONTROLLING/CONTROLLED of the wrong size).
     */
    public StunMessage parse(byte[] b, int off, int len) {
        if (b != inArray) {
            inArray = b;
            in = Unpooled.wrappedBuffer(b);
        }
        in.setIndex(off, off + len);
        try {
            StunMessage m = view.wrap(in);
            int u = m.find(StunAttribute.USERNAME);
            if (u >= 0 && m.valueLength(u) > MAX_USERNAME_BYTES) {
                return null;
            }
            m.uint32(StunAttribute.PRIORITY, 0);          // size checks: they throw if wrong
            m.uint64(StunAttribute.ICE_CONTROLLING, 0);
            m.uint64(StunAttribute.ICE_CONTROLLED, 0);
            return m;
        } catch (StunParseException e) {
            return null;
        }
    }

    /**
     * True if MESSAGE-INTEGRITY is present and right under the short-term {@code key}, and FINGERPRINT, if present,
     * is right too.
     */
    public static boolean verify(StunMessage m, byte[] key) {
        return (!m.hasFingerprint() || m.verifyFingerprint()) && m.verifyIntegrity(key);
    }

    /** The USERNAME as text, or null. */
    public static String username(StunMessage m) {
        return m.string(StunAttribute.USERNAME);
    }

    /** PRIORITY, or -1 if absent. */
    public static long priority(StunMessage m) {
        try {
            return m.uint32(StunAttribute.PRIORITY, -1);
        } catch (StunParseException e) {
            return -1; // parse() refused such a message already
        }
    }

    public static boolean useCandidate(StunMessage m) {
        return m.has(StunAttribute.USE_CANDIDATE);
    }

    public static boolean controlling(StunMessage m) {
        return m.has(StunAttribute.ICE_CONTROLLING);
    }

    public static boolean controlled(StunMessage m) {
        return m.has(StunAttribute.ICE_CONTROLLED);
    }

    /** XOR-MAPPED-ADDRESS as an address (allocates; client side only), or null. */
    public static InetSocketAddress xorMapped(StunMessage m) {
        try {
            return m.xorAddress(StunAttribute.XOR_MAPPED_ADDRESS);
        } catch (StunParseException e) {
            return null;
        }
    }

    /**
     * Writes a Binding success response to {@code request} (its transaction id) with XOR-MAPPED-ADDRESS,
     * MESSAGE-INTEGRITY and FINGERPRINT at {@code dst[off]}; returns its length.
     */
    public int writeBindingSuccess(byte[] dst, int off, StunMessage request, InetSocketAddress mapped, byte[] key) {
        writer.begin(output(dst, off), BINDING_SUCCESS, request);
        return finishSuccess(mapped, key);
    }

    /** As above, for a request whose transaction id the caller kept (12 bytes). */
    public int writeBindingSuccess(byte[] dst, int off, byte[] transactionId, InetSocketAddress mapped, byte[] key) {
        writer.begin(output(dst, off), BINDING_SUCCESS, transactionId);
        return finishSuccess(mapped, key);
    }

    private int finishSuccess(InetSocketAddress mapped, byte[] key) {
        return writer.xorAddress(StunAttribute.XOR_MAPPED_ADDRESS, mapped.getAddress(), mapped.getPort())
                .messageIntegrity(key).fingerprint().size();
    }

    /** Writes a Binding request (the client's connectivity check) at {@code dst[off]}; returns its length. */
    public int writeBindingRequest(byte[] dst, int off, byte[] transactionId, String username, long priority,
                                   boolean controlling, long tieBreaker, boolean useCandidate, byte[] key) {
        writer.begin(output(dst, off), BINDING_REQUEST, transactionId)
                .string(StunAttribute.USERNAME, username)
                .uint32(StunAttribute.PRIORITY, priority)
                .uint64(controlling ? StunAttribute.ICE_CONTROLLING : StunAttribute.ICE_CONTROLLED, tieBreaker);
        if (useCandidate) {
            writer.flag(StunAttribute.USE_CANDIDATE);
        }
        return writer.messageIntegrity(key).fingerprint().size();
    }

    private ByteBuf output(byte[] dst, int off) {
        if (dst != outArray) {
            outArray = dst;
            out = Unpooled.wrappedBuffer(dst);
        }
        return out.setIndex(off, off);
    }
}
