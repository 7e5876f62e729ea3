package dev.parley.media.stun;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * MESSAGE-INTEGRITY (HMAC-SHA1) and MESSAGE-INTEGRITY-SHA256 over a message region, and the key derivations of
 * RFC 8489 §9: short-term key = the (SASLprep'd) password bytes; long-term key = MD5(username ":" realm ":"
 * SASLprep(password)).
 */
public final class StunIntegrity {
    private static final ThreadLocal<Mac> SHA1 = ThreadLocal.withInitial(() -> mac("HmacSHA1"));
    private static final ThreadLocal<Mac> SHA256 = ThreadLocal.withInitial(() -> mac("HmacSHA256"));

    private StunIntegrity() {
    }

    private static Mac mac(String alg) {
        try {
            return Mac.getInstance(alg);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(alg + " missing from the JDK", e);
        }
    }

    /** Short-term credential key (ICE): the SASLprep'd password as UTF-8. */
    public static byte[] shortTermKey(String password) {
        return SaslPrep.prepare(password).getBytes(StandardCharsets.UTF_8);
    }

    /** Long-term credential key: MD5(username ":" realm ":" SASLprep(password)), 16 bytes. */
    public static byte[] longTermKey(String username, String realm, String password) {
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            md5.update(username.getBytes(StandardCharsets.UTF_8));
            md5.update((byte) ':');
            md5.update(realm.getBytes(StandardCharsets.UTF_8));
            md5.update((byte) ':');
            md5.update(SaslPrep.prepare(password).getBytes(StandardCharsets.UTF_8));
            return md5.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 missing from the JDK", e);
        }
    }

    /**
     * Checks an integrity attribute at {@code attrOffset}: the HMAC covers the message from {@code start} up to the
     * attribute, with the header's length field as if the message ended right after this attribute. The buffer is
     * not modified (it may be shared or read-only).
     */
    static boolean verify(ByteBuf buf, int start, int attrOffset, byte[] key, boolean sha256, int macLength) {
        if (key == null || key.length == 0) {
            return false;
        }
        Mac mac = init(sha256, key);
        int lengthAsIfLast = attrOffset - start - Stun.HEADER_LENGTH + 4 + macLength;
        update(mac, buf, start, 2);
        mac.update((byte) (lengthAsIfLast >>> 8));
        mac.update((byte) lengthAsIfLast);
        update(mac, buf, start + 4, attrOffset - start - 4);
        byte[] expected = mac.doFinal();
        int diff = 0;
        int v = attrOffset + 4;
        for (int i = 0; i < macLength; i++) {
            diff |= expected[i] ^ buf.getByte(v + i); // constant time
        }
        return diff == 0;
    }

    /** Computes the HMAC over {@code [start, end)} exactly as it is and writes {@code macLength} bytes at {@code out}. */
    static void sign(ByteBuf buf, int start, int end, byte[] key, boolean sha256, int macLength, int out) {
        if (key == null || key.length == 0) {
            throw new IllegalArgumentException("empty integrity key");
        }
        Mac mac = init(sha256, key);
        update(mac, buf, start, end - start);
        byte[] h = mac.doFinal();
        buf.setBytes(out, h, 0, macLength);
    }

    private static Mac init(boolean sha256, byte[] key) {
        Mac mac = (sha256 ? SHA256 : SHA1).get();
        try {
            mac.init(new SecretKeySpec(key, sha256 ? "HmacSHA256" : "HmacSHA1"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        return mac;
    }

    private static void update(Mac mac, ByteBuf buf, int index, int length) {
        if (buf.hasArray()) {
            mac.update(buf.array(), buf.arrayOffset() + index, length);
        } else if (buf.nioBufferCount() == 1) {
            mac.update(buf.internalNioBuffer(index, length));
        } else {
            for (int i = 0; i < length; i++) {
                mac.update(buf.getByte(index + i));
            }
        }
    }
}
