package dev.parley.turn.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Stateless nonces: {@code base64url(issued_seconds[4] || HMAC-SHA256(key, issued_seconds || client_ip || client_port)[0..12])}.
 * The server keeps no table: an unauthenticated flood costs one HMAC per answered request and no memory, and a
 * nonce captured on one client address is useless from another. The key is random per process.
 */
public final class NonceService {
    public enum Check { VALID, STALE, FORGED }

    private static final int MAC_LEN = 12;
    private final byte[] key;
    private final long ttlSeconds;
    private final ThreadLocal<Mac> macs;

    public NonceService(long ttlSeconds) {
        this(randomKey(), ttlSeconds);
    }

    NonceService(byte[] key, long ttlSeconds) {
        this.key = key.clone();
        this.ttlSeconds = ttlSeconds;
        this.macs = ThreadLocal.withInitial(this::newMac);
    }

    private static byte[] randomKey() {
        byte[] k = new byte[32];
        new SecureRandom().nextBytes(k);
        return k;
    }

    private Mac newMac() {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(key, "HmacSHA256"));
            return m;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    public String issue(byte[] clientAddress, long nowSeconds) {
        byte[] raw = new byte[4 + MAC_LEN];
        int ts = (int) nowSeconds;
        raw[0] = (byte) (ts >>> 24);
        raw[1] = (byte) (ts >>> 16);
        raw[2] = (byte) (ts >>> 8);
        raw[3] = (byte) ts;
        byte[] mac = mac(raw, clientAddress);
        System.arraycopy(mac, 0, raw, 4, MAC_LEN);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    }

    public Check check(String nonce, byte[] clientAddress, long nowSeconds) {
        byte[] raw;
        try {
            raw = Base64.getUrlDecoder().decode(nonce.getBytes(StandardCharsets.US_ASCII));
        } catch (IllegalArgumentException e) {
            return Check.FORGED;
        }
        if (raw.length != 4 + MAC_LEN) {
            return Check.FORGED;
        }
        byte[] mac = mac(raw, clientAddress);
        if (!MessageDigest.isEqual(java.util.Arrays.copyOf(mac, MAC_LEN), java.util.Arrays.copyOfRange(raw, 4, 4 + MAC_LEN))) {
            return Check.FORGED;
        }
        long issued = ((raw[0] & 0xFFL) << 24) | ((raw[1] & 0xFFL) << 16) | ((raw[2] & 0xFFL) << 8) | (raw[3] & 0xFFL);
        long age = nowSeconds - issued;
        return age < 0 || age > ttlSeconds ? Check.STALE : Check.VALID;
    }

    private byte[] mac(byte[] raw, byte[] clientAddress) {
        Mac m = macs.get();
        m.update(raw, 0, 4);
        m.update(clientAddress);
        return m.doFinal();
    }
}
