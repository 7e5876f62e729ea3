package dev.parley.media.stun;

import io.netty.buffer.ByteBuf;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;

/**
 * Writes one STUN message into a caller-supplied {@link ByteBuf} at its writer index. The header's length field is
 * kept current after every attribute, so MESSAGE-INTEGRITY and FINGERPRINT can be computed over the bytes as they
 * are. Reusable: call {@link #begin} for each message; attribute padding is zero.
 *
 * <pre>{@code
 * writer.begin(out, StunMessageType.of(StunMethod.BINDING, StunClass.SUCCESS_RESPONSE), request)
 *       .xorAddress(StunAttribute.XOR_MAPPED_ADDRESS, addr, port)
 *       .messageIntegrity(key).fingerprint();
 * }</pre>
 */
public final class StunMessageWriter {
    private ByteBuf out;
    private int start;
    private boolean sealed;

    /** Starts a message with the given transaction id (12 bytes). */
    public StunMessageWriter begin(ByteBuf out, int messageType, byte[] transactionId) {
        if (transactionId.length != Stun.TRANSACTION_ID_LENGTH) {
            throw new IllegalArgumentException("transaction id must be 12 bytes");
        }
        header(out, messageType);
        out.writeBytes(transactionId);
        return this;
    }

    /** Starts a response that echoes the transaction id of {@code request} (copied buffer to buffer). */
    public StunMessageWriter begin(ByteBuf out, int messageType, StunMessage request) {
        header(out, messageType);
        out.writeBytes(request.buffer(), request.start() + 8, Stun.TRANSACTION_ID_LENGTH);
        return this;
    }

    private void header(ByteBuf out, int messageType) {
        if ((messageType & 0xC000) != 0) {
            throw new IllegalArgumentException("message type has the top bits set");
        }
        this.out = out;
        this.start = out.writerIndex();
        this.sealed = false;
        out.writeShort(messageType);
        out.writeShort(0);
        out.writeInt(Stun.MAGIC_COOKIE);
    }

    private void attrHeader(int type, int length) {
        if (out == null) {
            throw new IllegalStateException("begin() first");
        }
        if (sealed) {
            throw new IllegalStateException("no attributes after FINGERPRINT");
        }
        if (length > 0xFFFF) {
            throw new IllegalArgumentException("attribute value longer than 65535");
        }
        out.writeShort(type);
        out.writeShort(length);
    }

    private StunMessageWriter endAttr(int length) {
        out.writeZero(Stun.pad4(length) - length);
        updateLength();
        return this;
    }

    private void updateLength() {
        int len = out.writerIndex() - start - Stun.HEADER_LENGTH;
        if (len > 0xFFFF) {
            throw new IllegalStateException("message longer than 65535");
        }
        out.setShort(start + 2, len);
    }

    public StunMessageWriter attribute(int type, byte[] value) {
        return attribute(type, value, 0, value.length);
    }

    public StunMessageWriter attribute(int type, byte[] value, int off, int len) {
        attrHeader(type, len);
        out.writeBytes(value, off, len);
        return endAttr(len);
    }

    /** Copies {@code len} bytes of {@code src} from {@code index} as the value (e.g. DATA from a received packet). */
    public StunMessageWriter attribute(int type, ByteBuf src, int index, int len) {
        attrHeader(type, len);
        out.writeBytes(src, index, len);
        return endAttr(len);
    }

    /** A zero-length attribute: USE-CANDIDATE, DONT-FRAGMENT. */
    public StunMessageWriter flag(int type) {
        attrHeader(type, 0);
        return endAttr(0);
    }

    public StunMessageWriter string(int type, String value) {
        return attribute(type, value.getBytes(StandardCharsets.UTF_8));
    }

    public StunMessageWriter uint32(int type, long value) {
        attrHeader(type, 4);
        out.writeInt((int) value);
        return endAttr(4);
    }

    public StunMessageWriter uint64(int type, long value) {
        attrHeader(type, 8);
        out.writeLong(value);
        return endAttr(8);
    }

    public StunMessageWriter channelNumber(int channel) {
        attrHeader(StunAttribute.CHANNEL_NUMBER, 4);
        out.writeShort(channel);
        out.writeShort(0);
        return endAttr(4);
    }

    /** REQUESTED-TRANSPORT with an IP protocol number (17 = UDP). */
    public StunMessageWriter requestedTransport(int protocol) {
        attrHeader(StunAttribute.REQUESTED_TRANSPORT, 4);
        out.writeByte(protocol);
        out.writeZero(3);
        return endAttr(4);
    }

    public StunMessageWriter evenPort(boolean reserveNext) {
        attrHeader(StunAttribute.EVEN_PORT, 1);
        out.writeByte(reserveNext ? 0x80 : 0);
        return endAttr(1);
    }

    /** ERROR-CODE with the given reason phrase (null: the standard one). */
    public StunMessageWriter errorCode(int code, String reason) {
        if (code < 300 || code > 699) {
            throw new IllegalArgumentException("error code out of range: " + code);
        }
        byte[] r = (reason == null ? StunErrorCode.reason(code) : reason).getBytes(StandardCharsets.UTF_8);
        attrHeader(StunAttribute.ERROR_CODE, 4 + r.length);
        out.writeShort(0);
        out.writeByte(code / 100);
        out.writeByte(code % 100);
        out.writeBytes(r);
        return endAttr(4 + r.length);
    }

    public StunMessageWriter unknownAttributes(int... types) {
        attrHeader(StunAttribute.UNKNOWN_ATTRIBUTES, types.length * 2);
        for (int t : types) {
            out.writeShort(t);
        }
        return endAttr(types.length * 2);
    }

    /** A plain address attribute (MAPPED-ADDRESS, ALTERNATE-SERVER). */
    public StunMessageWriter address(int type, InetAddress address, int port) {
        return address(type, address.getAddress(), port, false);
    }

    /** An XOR-*-ADDRESS attribute; IPv4-mapped IPv6 addresses are written as IPv4. */
    public StunMessageWriter xorAddress(int type, InetAddress address, int port) {
        return address(type, address.getAddress(), port, true);
    }

    /** An address attribute from raw bytes (4 or 16) without allocating. */
    public StunMessageWriter address(int type, byte[] addr, int port, boolean xor) {
        int family;
        int n = addr.length;
        boolean mapped = n == 16 && isV4Mapped(addr);
        if (n == 4 || mapped) {
            family = StunMessage.StunAddress.FAMILY_IPV4;
        } else if (n == 16) {
            family = StunMessage.StunAddress.FAMILY_IPV6;
        } else {
            throw new IllegalArgumentException("address must be 4 or 16 bytes");
        }
        int alen = family == StunMessage.StunAddress.FAMILY_IPV4 ? 4 : 16;
        int off = mapped ? 12 : 0;
        attrHeader(type, 4 + alen);
        out.writeByte(0);
        out.writeByte(family);
        out.writeShort(xor ? port ^ (Stun.MAGIC_COOKIE >>> 16) : port);
        for (int k = 0; k < alen; k++) {
            int b = addr[off + k];
            if (xor) {
                b ^= out.getByte(start + 4 + k); // cookie then transaction id, as in the header
            }
            out.writeByte(b);
        }
        return endAttr(4 + alen);
    }

    private static boolean isV4Mapped(byte[] a) {
        for (int i = 0; i < 10; i++) {
            if (a[i] != 0) {
                return false;
            }
        }
        return a[10] == (byte) 0xFF && a[11] == (byte) 0xFF;
    }

    /**
     * Writes the header of a DATA attribute of {@code length} bytes and returns; the caller writes exactly
     * {@code length} bytes and then calls {@link #endData(int)}. Lets the relay copy payload once.
     */
    public StunMessageWriter beginData(int length) {
        attrHeader(StunAttribute.DATA, length);
        return this;
    }

    public StunMessageWriter endData(int length) {
        return endAttr(length);
    }

    /** MESSAGE-INTEGRITY (HMAC-SHA1) over everything so far, with the length field already covering it. */
    public StunMessageWriter messageIntegrity(byte[] key) {
        return integrity(StunAttribute.MESSAGE_INTEGRITY, key, false, 20);
    }

    /** MESSAGE-INTEGRITY-SHA256, full 32 bytes. */
    public StunMessageWriter messageIntegritySha256(byte[] key) {
        return integrity(StunAttribute.MESSAGE_INTEGRITY_SHA256, key, true, 32);
    }

    private StunMessageWriter integrity(int type, byte[] key, boolean sha256, int macLength) {
        int attrStart = out.writerIndex();
        attrHeader(type, macLength);
        out.writeZero(macLength);
        updateLength();
        StunIntegrity.sign(out, start, attrStart, key, sha256, macLength, attrStart + 4);
        return this;
    }

    /** FINGERPRINT: must be last. */
    public StunMessageWriter fingerprint() {
        int attrStart = out.writerIndex();
        attrHeader(StunAttribute.FINGERPRINT, 4);
        out.writeInt(0);
        updateLength();
        int crc = StunFingerprint.crc32(out, start, attrStart - start) ^ Stun.FINGERPRINT_XOR;
        out.setInt(attrStart + 4, crc);
        sealed = true;
        return this;
    }

    /** Size of the message written so far, header included. */
    public int size() {
        return out.writerIndex() - start;
    }
}
