package dev.parley.media.stun;

import io.netty.buffer.ByteBuf;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;

/**
 * A validated, read-only view of one STUN message inside a {@link ByteBuf}. {@link #wrap(ByteBuf)} checks the header
 * and walks the attributes once, remembering where each value is; accessors then read values in place. One instance
 * can be reused for every packet on a thread (no allocation per message), and it does not retain the buffer: the
 * view is only valid while the caller holds the buffer unchanged.
 *
 * <p>Per RFC 8489 §14.5/§14.7 only MESSAGE-INTEGRITY-SHA256 and FINGERPRINT may follow MESSAGE-INTEGRITY, and
 * nothing may follow FINGERPRINT; other attributes after MESSAGE-INTEGRITY are ignored (not indexed), anything after
 * FINGERPRINT is rejected.
 */
public final class StunMessage {
    /** More attributes than this is not a message any STUN/TURN/ICE peer sends; refuse rather than grow. */
    public static final int MAX_ATTRIBUTES = 48;

    private final int[] attrTypes = new int[MAX_ATTRIBUTES];
    private final int[] attrOffsets = new int[MAX_ATTRIBUTES]; // absolute index of the attribute header
    private final int[] attrLengths = new int[MAX_ATTRIBUTES]; // unpadded value length
    private int attrCount;
    private ByteBuf buf;
    private int start;
    private int type;
    private int length;
    private int integrityIndex;
    private int integritySha256Index;
    private int fingerprintIndex;

    /** Decodes a new view (allocates the view; for hot paths keep one and call {@link #wrap}). */
    public static StunMessage parse(ByteBuf buf) throws StunParseException {
        return new StunMessage().wrap(buf);
    }

    /**
     * Points this view at the message occupying exactly the readable bytes of {@code buf}. Does not move indexes.
     *
     * @throws StunParseException if the bytes are not one well-formed STUN message
     */
    public StunMessage wrap(ByteBuf buf) throws StunParseException {
        this.buf = null;
        attrCount = 0;
        integrityIndex = -1;
        integritySha256Index = -1;
        fingerprintIndex = -1;
        int readable = buf.readableBytes();
        if (readable < Stun.HEADER_LENGTH) {
            throw new StunParseException("shorter than a STUN header");
        }
        int s = buf.readerIndex();
        int t = buf.getUnsignedShort(s);
        if ((t & 0xC000) != 0) {
            throw new StunParseException("first two bits not zero");
        }
        int len = buf.getUnsignedShort(s + 2);
        if ((len & 3) != 0) {
            throw new StunParseException("length not a multiple of 4");
        }
        if (buf.getInt(s + 4) != Stun.MAGIC_COOKIE) {
            throw new StunParseException("wrong magic cookie");
        }
        if (Stun.HEADER_LENGTH + len != readable) {
            throw new StunParseException("length field does not match packet size");
        }
        int pos = s + Stun.HEADER_LENGTH;
        int end = pos + len;
        while (pos < end) {
            if (end - pos < 4) {
                throw new StunParseException("truncated attribute header");
            }
            int at = buf.getUnsignedShort(pos);
            int al = buf.getUnsignedShort(pos + 2);
            int next = pos + 4 + Stun.pad4(al);
            if (pos + 4 + al > end || next > end) {
                throw new StunParseException("attribute runs past the message");
            }
            if (fingerprintIndex >= 0) {
                throw new StunParseException("attribute after FINGERPRINT");
            }
            boolean afterIntegrity = integrityIndex >= 0 || integritySha256Index >= 0;
            boolean index = !afterIntegrity || at == StunAttribute.FINGERPRINT
                    || (at == StunAttribute.MESSAGE_INTEGRITY_SHA256 && integritySha256Index < 0);
            if (index) {
                if (attrCount == MAX_ATTRIBUTES) {
                    throw new StunParseException("too many attributes");
                }
                switch (at) {
                    case StunAttribute.MESSAGE_INTEGRITY -> {
                        if (al != 20) {
                            throw new StunParseException("MESSAGE-INTEGRITY length not 20");
                        }
                        integrityIndex = attrCount;
                    }
                    case StunAttribute.MESSAGE_INTEGRITY_SHA256 -> {
                        if (al < 16 || al > 32 || (al & 3) != 0) {
                            throw new StunParseException("MESSAGE-INTEGRITY-SHA256 length invalid");
                        }
                        integritySha256Index = attrCount;
                    }
                    case StunAttribute.FINGERPRINT -> {
                        if (al != 4) {
                            throw new StunParseException("FINGERPRINT length not 4");
                        }
                        fingerprintIndex = attrCount;
                    }
                    default -> {
                    }
                }
                attrTypes[attrCount] = at;
                attrOffsets[attrCount] = pos;
                attrLengths[attrCount] = al;
                attrCount++;
            }
            pos = next;
        }
        this.buf = buf;
        this.start = s;
        this.type = t;
        this.length = len;
        return this;
    }

    private ByteBuf buf() {
        if (buf == null) {
            throw new IllegalStateException("no message wrapped");
        }
        return buf;
    }

    public ByteBuf buffer() {
        return buf();
    }

    /** Index of the first header byte in {@link #buffer()}. */
    public int start() {
        return start;
    }

    /** Total size on the wire: header plus attributes. */
    public int size() {
        return Stun.HEADER_LENGTH + length;
    }

    public int messageType() {
        return type;
    }

    public int method() {
        return StunMessageType.method(type);
    }

    public StunClass messageClass() {
        return StunMessageType.messageClass(type);
    }

    public boolean isRequest() {
        return (type & 0x0110) == 0;
    }

    public boolean isIndication() {
        return (type & 0x0110) == 0x0010;
    }

    public byte[] transactionId() {
        byte[] id = new byte[Stun.TRANSACTION_ID_LENGTH];
        buf().getBytes(start + 8, id);
        return id;
    }

    public void copyTransactionId(byte[] dst, int off) {
        buf().getBytes(start + 8, dst, off, Stun.TRANSACTION_ID_LENGTH);
    }

    public boolean transactionIdEquals(byte[] id) {
        ByteBuf b = buf();
        for (int i = 0; i < Stun.TRANSACTION_ID_LENGTH; i++) {
            if (b.getByte(start + 8 + i) != id[i]) {
                return false;
            }
        }
        return true;
    }

    public int attributeCount() {
        return attrCount;
    }

    public int attributeType(int i) {
        return attrTypes[i];
    }

    /** Absolute buffer index of attribute {@code i}'s value. */
    public int valueOffset(int i) {
        return attrOffsets[i] + 4;
    }

    public int valueLength(int i) {
        return attrLengths[i];
    }

    /** Index of the first attribute of {@code type}, or -1. */
    public int find(int attrType) {
        for (int i = 0; i < attrCount; i++) {
            if (attrTypes[i] == attrType) {
                return i;
            }
        }
        return -1;
    }

    public boolean has(int attrType) {
        return find(attrType) >= 0;
    }

    /**
     * The first comprehension-required attribute type that {@code known} does not accept, or -1. A request that has one
     * must get 420 with UNKNOWN-ATTRIBUTES.
     */
    public int firstUnknownRequired(java.util.function.IntPredicate known) {
        for (int i = 0; i < attrCount; i++) {
            int t = attrTypes[i];
            if (StunAttribute.isComprehensionRequired(t) && !known.test(t)) {
                return t;
            }
        }
        return -1;
    }

    /** A copy of the value of the first {@code attrType}, or null. */
    public byte[] bytes(int attrType) {
        int i = find(attrType);
        if (i < 0) {
            return null;
        }
        byte[] v = new byte[attrLengths[i]];
        buf().getBytes(valueOffset(i), v);
        return v;
    }

    /** The value as UTF-8 text (USERNAME, REALM, NONCE, SOFTWARE), or null. */
    public String string(int attrType) {
        int i = find(attrType);
        return i < 0 ? null : buf().toString(valueOffset(i), attrLengths[i], StandardCharsets.UTF_8);
    }

    /** True if attribute {@code attrType} is present and its value equals {@code expected} byte for byte. */
    public boolean valueEquals(int attrType, byte[] expected) {
        int i = find(attrType);
        if (i < 0 || attrLengths[i] != expected.length) {
            return false;
        }
        int o = valueOffset(i);
        for (int k = 0; k < expected.length; k++) {
            if (buf.getByte(o + k) != expected[k]) {
                return false;
            }
        }
        return true;
    }

    /** A 32-bit value (LIFETIME, PRIORITY, REQUESTED-TRANSPORT's protocol byte in bits 31..24), or {@code dflt}. */
    public long uint32(int attrType, long dflt) throws StunParseException {
        int i = find(attrType);
        if (i < 0) {
            return dflt;
        }
        if (attrLengths[i] != 4) {
            throw new StunParseException(StunAttribute.name(attrType) + " length not 4");
        }
        return buf.getUnsignedInt(valueOffset(i));
    }

    /** A 64-bit value (ICE-CONTROLLED/ICE-CONTROLLING tie-breaker, RESERVATION-TOKEN). */
    public long uint64(int attrType, long dflt) throws StunParseException {
        int i = find(attrType);
        if (i < 0) {
            return dflt;
        }
        if (attrLengths[i] != 8) {
            throw new StunParseException(StunAttribute.name(attrType) + " length not 8");
        }
        return buf.getLong(valueOffset(i));
    }

    /** CHANNEL-NUMBER (the upper 16 bits of its value), or -1 if absent. */
    public int channelNumber() throws StunParseException {
        int i = find(StunAttribute.CHANNEL_NUMBER);
        if (i < 0) {
            return -1;
        }
        if (attrLengths[i] != 4) {
            throw new StunParseException("CHANNEL-NUMBER length not 4");
        }
        return buf.getUnsignedShort(valueOffset(i));
    }

    /** The protocol number in REQUESTED-TRANSPORT (17 = UDP, 6 = TCP), or -1 if absent. */
    public int requestedTransport() throws StunParseException {
        int i = find(StunAttribute.REQUESTED_TRANSPORT);
        if (i < 0) {
            return -1;
        }
        if (attrLengths[i] != 4) {
            throw new StunParseException("REQUESTED-TRANSPORT length not 4");
        }
        return buf.getUnsignedByte(valueOffset(i));
    }

    /** ERROR-CODE as class*100+number, or -1 if absent. */
    public int errorCode() throws StunParseException {
        int i = find(StunAttribute.ERROR_CODE);
        if (i < 0) {
            return -1;
        }
        if (attrLengths[i] < 4) {
            throw new StunParseException("ERROR-CODE shorter than 4");
        }
        int o = valueOffset(i);
        int cls = buf.getUnsignedByte(o + 2) & 0x07;
        int num = buf.getUnsignedByte(o + 3);
        if (cls < 3 || cls > 6 || num > 99) {
            throw new StunParseException("ERROR-CODE out of range");
        }
        return cls * 100 + num;
    }

    /** The attribute types listed in UNKNOWN-ATTRIBUTES, or an empty array. */
    public int[] unknownAttributes() throws StunParseException {
        int i = find(StunAttribute.UNKNOWN_ATTRIBUTES);
        if (i < 0) {
            return new int[0];
        }
        int l = attrLengths[i];
        if ((l & 1) != 0) {
            throw new StunParseException("UNKNOWN-ATTRIBUTES odd length");
        }
        int[] out = new int[l / 2];
        for (int k = 0; k < out.length; k++) {
            out[k] = buf.getUnsignedShort(valueOffset(i) + 2 * k);
        }
        return out;
    }

    /**
     * Decodes an XOR-*-ADDRESS attribute into {@code out} without allocating. Returns false if absent.
     */
    public boolean xorAddress(int attrType, StunAddress out) throws StunParseException {
        int i = find(attrType);
        if (i < 0) {
            return false;
        }
        readAddress(i, true, out);
        return true;
    }

    /** Decodes a plain MAPPED-ADDRESS-style attribute into {@code out}. Returns false if absent. */
    public boolean plainAddress(int attrType, StunAddress out) throws StunParseException {
        int i = find(attrType);
        if (i < 0) {
            return false;
        }
        readAddress(i, false, out);
        return true;
    }

    /** Convenience for control paths: the XOR address as an {@link InetSocketAddress}, or null if absent. */
    public InetSocketAddress xorAddress(int attrType) throws StunParseException {
        StunAddress a = new StunAddress();
        return xorAddress(attrType, a) ? a.toSocketAddress() : null;
    }

    public InetSocketAddress plainAddress(int attrType) throws StunParseException {
        StunAddress a = new StunAddress();
        return plainAddress(attrType, a) ? a.toSocketAddress() : null;
    }

    /** Decodes the {@code i}-th attribute as an address (plain or XOR). */
    public void readAddress(int i, boolean xor, StunAddress out) throws StunParseException {
        int o = valueOffset(i);
        int l = attrLengths[i];
        if (l < 4) {
            throw new StunParseException("address attribute too short");
        }
        int family = buf.getUnsignedByte(o + 1);
        int port = buf.getUnsignedShort(o + 2);
        if (xor) {
            port ^= Stun.MAGIC_COOKIE >>> 16;
        }
        byte[] addr;
        if (family == StunAddress.FAMILY_IPV4) {
            if (l != 8) {
                throw new StunParseException("IPv4 address attribute length not 8");
            }
            addr = out.prepare(4);
        } else if (family == StunAddress.FAMILY_IPV6) {
            if (l != 20) {
                throw new StunParseException("IPv6 address attribute length not 20");
            }
            addr = out.prepare(16);
        } else {
            throw new StunParseException("unknown address family");
        }
        buf.getBytes(o + 4, addr, 0, addr.length);
        if (xor) {
            for (int k = 0; k < addr.length; k++) {
                // bytes 0..3 XOR the cookie, bytes 4..15 the transaction id: both sit at header offset 4+k
                addr[k] ^= buf.getByte(start + 4 + k);
            }
        }
        out.port = port;
    }

    /** True if the message has a FINGERPRINT and it matches. */
    public boolean verifyFingerprint() {
        if (fingerprintIndex < 0) {
            return false;
        }
        int fpOffset = attrOffsets[fingerprintIndex];
        // FINGERPRINT is last, so the length field already covers it: CRC the bytes as they are.
        int crc = StunFingerprint.crc32(buf, start, fpOffset - start) ^ Stun.FINGERPRINT_XOR;
        return crc == buf.getInt(fpOffset + 4);
    }

    public boolean hasFingerprint() {
        return fingerprintIndex >= 0;
    }

    public boolean hasIntegrity() {
        return integrityIndex >= 0;
    }

    public boolean hasIntegritySha256() {
        return integritySha256Index >= 0;
    }

    /** True if MESSAGE-INTEGRITY is present and is the HMAC-SHA1 of the message under {@code key}. */
    public boolean verifyIntegrity(byte[] key) {
        if (integrityIndex < 0) {
            return false;
        }
        return StunIntegrity.verify(buf, start, attrOffsets[integrityIndex], key, false, 20);
    }

    /** True if MESSAGE-INTEGRITY-SHA256 is present and matches under {@code key}. */
    public boolean verifyIntegritySha256(byte[] key) {
        if (integritySha256Index < 0) {
            return false;
        }
        return StunIntegrity.verify(buf, start, attrOffsets[integritySha256Index], key, true,
                attrLengths[integritySha256Index]);
    }

    /** Mutable address holder so hot paths can decode addresses without allocating. */
    public static final class StunAddress {
        public static final int FAMILY_IPV4 = 0x01;
        public static final int FAMILY_IPV6 = 0x02;

        private final byte[] v4 = new byte[4];
        private final byte[] v6 = new byte[16];
        private byte[] current = v4;
        public int port;

        byte[] prepare(int len) {
            current = len == 4 ? v4 : v6;
            return current;
        }

        /** The raw address bytes (4 or 16); owned by this holder, overwritten by the next decode. */
        public byte[] address() {
            return current;
        }

        public int family() {
            return current.length == 4 ? FAMILY_IPV4 : FAMILY_IPV6;
        }

        public InetSocketAddress toSocketAddress() {
            try {
                return new InetSocketAddress(InetAddress.getByAddress(current.clone()), port);
            } catch (UnknownHostException e) {
                throw new IllegalStateException(e); // only thrown for lengths other than 4/16
            }
        }
    }
}
