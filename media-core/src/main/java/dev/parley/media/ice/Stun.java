package dev.parley.media.ice;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.zip.CRC32;

/**
 * The small slice of STUN (RFC 8489) that ICE connectivity checks need: Binding request/response with
 * USERNAME, PRIORITY, USE-CANDIDATE, ICE-CONTROLLING, XOR-MAPPED-ADDRESS, short-term MESSAGE-INTEGRITY and
 * FINGERPRINT. (The general STUN/TURN codec lives in dev.parley.media.stun.)
 */
public final class Stun {
    public static final int BINDING_REQUEST = 0x0001, BINDING_SUCCESS = 0x0101, BINDING_ERROR = 0x0111, BINDING_INDICATION = 0x0011;
    public static final int MAGIC = 0x2112A442;
    static final int ATTR_MAPPED = 0x0001, ATTR_USERNAME = 0x0006, ATTR_INTEGRITY = 0x0008, ATTR_ERROR = 0x0009,
            ATTR_XOR_MAPPED = 0x0020, ATTR_PRIORITY = 0x0024, ATTR_USE_CANDIDATE = 0x0025,
            ATTR_FINGERPRINT = 0x8028, ATTR_CONTROLLED = 0x8029, ATTR_CONTROLLING = 0x802A;
    private static final int FINGERPRINT_XOR = 0x5354554e;

    private Stun() {}

    /** First-byte demux (RFC 7983): STUN is 0..3 and has the magic cookie. */
    public static boolean isStun(byte[] b, int off, int len) {
        return len >= 20 && (b[off] & 0xC0) == 0 && readInt(b, off + 4) == MAGIC
                && ((readShort(b, off + 2) + 20) <= len) && (readShort(b, off + 2) & 3) == 0;
    }

    public static int type(byte[] b, int off) { return readShort(b, off); }

    /** Parsed view of a message's attributes relevant to ICE; all offsets absolute. */
    public static final class Message {
        public int type;
        public int length;               // total including header
        public final byte[] transactionId = new byte[12];
        public String username;
        public long priority = -1;
        public boolean useCandidate;
        public boolean controlling, controlled;
        public int integrityOffset = -1; // start of MESSAGE-INTEGRITY attribute header
        public int fingerprintOffset = -1;
        public InetSocketAddress xorMapped;
        public int errorCode = -1;
    }

    /** Parses the message; returns null if malformed. Allocates (slow path: connectivity checks). */
    public static Message parse(byte[] b, int off, int len) {
        if (!isStun(b, off, len)) return null;
        Message m = new Message();
        m.type = readShort(b, off);
        int bodyLen = readShort(b, off + 2);
        m.length = 20 + bodyLen;
        System.arraycopy(b, off + 8, m.transactionId, 0, 12);
        int p = off + 20, end = off + m.length;
        while (p + 4 <= end) {
            int t = readShort(b, p), l = readShort(b, p + 2);
            int v = p + 4;
            if (v + l > end) return null;
            if (m.integrityOffset >= 0 && t != ATTR_FINGERPRINT) { p = v + ((l + 3) & ~3); continue; } // ignored after MI
            switch (t) {
                case ATTR_USERNAME -> { if (l > 513) return null; m.username = new String(b, v, l, StandardCharsets.UTF_8); }
                case ATTR_PRIORITY -> { if (l != 4) return null; m.priority = readInt(b, v) & 0xFFFFFFFFL; }
                case ATTR_USE_CANDIDATE -> m.useCandidate = true;
                case ATTR_CONTROLLING -> m.controlling = true;
                case ATTR_CONTROLLED -> m.controlled = true;
                case ATTR_INTEGRITY -> { if (l != 20) return null; m.integrityOffset = p; }
                case ATTR_FINGERPRINT -> { if (l != 4) return null; m.fingerprintOffset = p; }
                case ATTR_XOR_MAPPED -> m.xorMapped = readXorAddress(b, v, l, m.transactionId);
                case ATTR_ERROR -> { if (l >= 4) m.errorCode = (b[v + 2] & 0x7) * 100 + (b[v + 3] & 0xFF); }
                default -> { }
            }
            p = v + ((l + 3) & ~3);
        }
        if (p != end) return null;
        return m;
    }

    /** Verifies FINGERPRINT (if present, it must be right) and MESSAGE-INTEGRITY with {@code key}. */
    public static boolean verify(byte[] b, int off, Message m, byte[] key) {
        if (m.fingerprintOffset >= 0) {
            int fp = m.fingerprintOffset;
            int saved = readShort(b, off + 2);
            writeShort(b, off + 2, fp + 8 - off - 20);
            CRC32 crc = new CRC32();
            crc.update(b, off, fp - off);
            writeShort(b, off + 2, saved);
            if (((int) crc.getValue() ^ FINGERPRINT_XOR) != readInt(b, fp + 4)) return false;
        }
        if (m.integrityOffset < 0) return false;
        int mi = m.integrityOffset;
        int saved = readShort(b, off + 2);
        writeShort(b, off + 2, mi + 24 - off - 20);
        byte[] h = hmac(key, b, off, mi - off);
        writeShort(b, off + 2, saved);
        byte[] got = new byte[20];
        System.arraycopy(b, mi + 4, got, 0, 20);
        return MessageDigest.isEqual(h, got);
    }

    /** Builds a Binding success response with XOR-MAPPED-ADDRESS, MESSAGE-INTEGRITY and FINGERPRINT. */
    public static int writeBindingSuccess(byte[] out, int off, byte[] transactionId, InetSocketAddress mapped, byte[] key) {
        int p = header(out, off, BINDING_SUCCESS, transactionId);
        p = writeXorAddress(out, p, ATTR_XOR_MAPPED, mapped, transactionId);
        return finish(out, off, p, key);
    }

    /** Builds a Binding request (client role, used by the load client and tests). */
    public static int writeBindingRequest(byte[] out, int off, byte[] transactionId, String username, long priority,
                                          boolean controlling, long tieBreaker, boolean useCandidate, byte[] key) {
        int p = header(out, off, BINDING_REQUEST, transactionId);
        byte[] u = username.getBytes(StandardCharsets.UTF_8);
        p = attr(out, p, ATTR_USERNAME, u, u.length);
        byte[] pr = new byte[4];
        writeInt(pr, 0, (int) priority);
        p = attr(out, p, ATTR_PRIORITY, pr, 4);
        byte[] tb = new byte[8];
        writeInt(tb, 0, (int) (tieBreaker >>> 32));
        writeInt(tb, 4, (int) tieBreaker);
        p = attr(out, p, controlling ? ATTR_CONTROLLING : ATTR_CONTROLLED, tb, 8);
        if (useCandidate) p = attr(out, p, ATTR_USE_CANDIDATE, tb, 0);
        return finish(out, off, p, key);
    }

    private static int header(byte[] out, int off, int type, byte[] tid) {
        writeShort(out, off, type);
        writeShort(out, off + 2, 0);
        writeInt(out, off + 4, MAGIC);
        System.arraycopy(tid, 0, out, off + 8, 12);
        return off + 20;
    }

    private static int finish(byte[] out, int off, int p, byte[] key) {
        // MESSAGE-INTEGRITY: length field covers up to and including MI
        writeShort(out, off + 2, p + 24 - off - 20);
        byte[] h = hmac(key, out, off, p - off);
        p = attr(out, p, ATTR_INTEGRITY, h, 20);
        writeShort(out, off + 2, p + 8 - off - 20);
        CRC32 crc = new CRC32();
        crc.update(out, off, p - off);
        byte[] fp = new byte[4];
        writeInt(fp, 0, (int) crc.getValue() ^ FINGERPRINT_XOR);
        p = attr(out, p, ATTR_FINGERPRINT, fp, 4);
        return p - off;
    }

    private static int attr(byte[] out, int p, int type, byte[] v, int l) {
        writeShort(out, p, type);
        writeShort(out, p + 2, l);
        System.arraycopy(v, 0, out, p + 4, l);
        int padded = (l + 3) & ~3;
        for (int i = l; i < padded; i++) out[p + 4 + i] = 0;
        return p + 4 + padded;
    }

    private static int writeXorAddress(byte[] out, int p, int type, InetSocketAddress a, byte[] tid) {
        byte[] ip = a.getAddress().getAddress();
        int l = 4 + ip.length;
        writeShort(out, p, type);
        writeShort(out, p + 2, l);
        out[p + 4] = 0;
        out[p + 5] = (byte) (ip.length == 4 ? 1 : 2);
        writeShort(out, p + 6, a.getPort() ^ (MAGIC >>> 16));
        byte[] mask = new byte[16];
        writeInt(mask, 0, MAGIC);
        System.arraycopy(tid, 0, mask, 4, 12);
        for (int i = 0; i < ip.length; i++) out[p + 8 + i] = (byte) (ip[i] ^ mask[i]);
        return p + 4 + l;
    }

    private static InetSocketAddress readXorAddress(byte[] b, int v, int l, byte[] tid) {
        if (l < 8) return null;
        int fam = b[v + 1];
        int port = readShort(b, v + 2) ^ (MAGIC >>> 16);
        int n = fam == 1 ? 4 : 16;
        if (l < 4 + n) return null;
        byte[] mask = new byte[16];
        writeInt(mask, 0, MAGIC);
        System.arraycopy(tid, 0, mask, 4, 12);
        byte[] ip = new byte[n];
        for (int i = 0; i < n; i++) ip[i] = (byte) (b[v + 4 + i] ^ mask[i]);
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (java.net.UnknownHostException e) {
            return null;
        }
    }

    private static byte[] hmac(byte[] key, byte[] b, int off, int len) {
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(key, "HmacSHA1"));
            mac.update(b, off, len);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static int readShort(byte[] b, int o) { return ((b[o] & 0xFF) << 8) | (b[o + 1] & 0xFF); }
    static int readInt(byte[] b, int o) { return ((b[o] & 0xFF) << 24) | ((b[o + 1] & 0xFF) << 16) | ((b[o + 2] & 0xFF) << 8) | (b[o + 3] & 0xFF); }
    static void writeShort(byte[] b, int o, int v) { b[o] = (byte) (v >>> 8); b[o + 1] = (byte) v; }
    static void writeInt(byte[] b, int o, int v) { b[o] = (byte) (v >>> 24); b[o + 1] = (byte) (v >>> 16); b[o + 2] = (byte) (v >>> 8); b[o + 3] = (byte) v; }
}
