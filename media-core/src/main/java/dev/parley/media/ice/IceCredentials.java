package dev.parley.media.ice;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;

/** ICE ufrag/pwd (RFC 8445 §5.3): ufrag ≥ 4 and pwd ≥ 22 characters from the ice-char set. */
public record IceCredentials(String ufrag, String pwd) {
    private static final String CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    private static final SecureRandom RANDOM = new SecureRandom();

    public static IceCredentials random() { return new IceCredentials(randomString(8), randomString(24)); }

    public byte[] pwdBytes() { return pwd.getBytes(StandardCharsets.UTF_8); }

    static String randomString(int n) {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) sb.append(CHARS.charAt(RANDOM.nextInt(CHARS.length())));
        return sb.toString();
    }

    @Override
    public String toString() { return "IceCredentials[ufrag=" + ufrag + "]"; } // never print the password
}
