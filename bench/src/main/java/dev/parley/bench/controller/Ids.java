package dev.parley.bench.controller;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.SplittableRandom;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The load generator's identities, made cheaply on its one thread: random (version 4) UUIDs from a
 * non-cryptographic generator (they only need to be unique; {@code UUID.randomUUID} goes through SecureRandom)
 * and HS256 bearer tokens {@code {"sub", "tid", "exp"}} signed with one reused {@link Mac} — the same JWS nimbus
 * produced before ({@code IdsTest} verifies them with nimbus), without building a JSON object per token.
 * Not thread-safe: one instance per thread.
 */
final class Ids {
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final String HEADER = B64.encodeToString("{\"alg\":\"HS256\"}".getBytes(StandardCharsets.US_ASCII));

    private final SplittableRandom random;
    private final Mac mac;
    private final long expSeconds;

    Ids(String hmacSecret, long seed) {
        random = new SplittableRandom(seed);
        try {
            mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(hmacSecret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        expSeconds = System.currentTimeMillis() / 1000 + 3600;
    }

    UUID uuid() {
        long hi = (random.nextLong() & ~0xF000L) | 0x4000L; // version 4
        long lo = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L; // IETF variant
        return new UUID(hi, lo);
    }

    /** A bearer token for {@code principal} of {@code tenant}, valid for about an hour. */
    String token(UUID tenant, UUID principal) {
        String claims = "{\"sub\":\"" + principal + "\",\"tid\":\"" + tenant + "\",\"exp\":" + expSeconds + "}";
        String signingInput = HEADER + "." + B64.encodeToString(claims.getBytes(StandardCharsets.US_ASCII));
        byte[] sig = mac.doFinal(signingInput.getBytes(StandardCharsets.US_ASCII));
        return signingInput + "." + B64.encodeToString(sig);
    }
}
