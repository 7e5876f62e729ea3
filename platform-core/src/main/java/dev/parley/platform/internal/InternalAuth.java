package dev.parley.platform.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The shared bearer secret of internal HTTP ({@code PARLEY_INTERNAL_SECRET}), compared in constant time.
 * {@code toString} never shows it.
 */
public final class InternalAuth {
    public static final String HEADER = "Authorization";
    private final byte[] expected;

    public InternalAuth(String secret) {
        if (secret == null || secret.length() < 16) {
            throw new IllegalArgumentException("PARLEY_INTERNAL_SECRET must have at least 16 characters");
        }
        this.expected = ("Bearer " + secret).getBytes(StandardCharsets.UTF_8);
    }

    /** Value for the Authorization header of outgoing internal requests. */
    public String headerValue() {
        return new String(expected, StandardCharsets.UTF_8);
    }

    /** True when the Authorization header carries the secret. */
    public boolean accepts(String authorizationHeader) {
        if (authorizationHeader == null) {
            return false;
        }
        return MessageDigest.isEqual(expected, authorizationHeader.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String toString() {
        return "InternalAuth[***]";
    }
}
