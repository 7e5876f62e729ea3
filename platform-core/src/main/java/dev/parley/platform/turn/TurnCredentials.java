package dev.parley.platform.turn;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * TURN REST API ephemeral credentials (the scheme coturn calls {@code use-auth-secret}): username
 * {@code {expiry_unix}:{participant_id}}, password {@code base64(HMAC-SHA1(secret, username))}. The controller calls
 * {@link #generate}; the TURN pod calls {@link #passwords} to derive the candidate passwords for a username and
 * {@link #parseExpiry} to refuse expired ones. Stateless: nothing is stored per credential.
 */
public final class TurnCredentials {
    private final TurnSecrets secrets;

    public TurnCredentials(TurnSecrets secrets) {
        this.secrets = secrets;
    }

    /** A credential for {@code participantId} valid for {@code ttl} from {@code now}, signed with the current secret. */
    public TurnCredential generate(String participantId, Duration ttl, Instant now) {
        if (participantId == null || participantId.isEmpty() || participantId.indexOf(':') >= 0) {
            throw new IllegalArgumentException("participant id must be non-empty and contain no ':'");
        }
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive");
        }
        long expiry = now.plus(ttl).getEpochSecond();
        String username = expiry + ":" + participantId;
        return new TurnCredential(username, password(secrets.current(), username), Instant.ofEpochSecond(expiry));
    }

    /** The password each configured secret gives {@code username}, current secret first. */
    public String[] passwords(String username) {
        String[] out = new String[secrets.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = password(secrets.all().get(i), username);
        }
        return out;
    }

    /**
     * Checks a username/password pair as a whole (expiry plus password under any secret). TURN itself never sees the
     * password, only a MESSAGE-INTEGRITY keyed by it; this is for HTTP-level checks and tests.
     */
    public boolean verify(String username, String password, Instant now) {
        long expiry = parseExpiry(username);
        if (expiry < 0 || expiry <= now.getEpochSecond()) {
            return false;
        }
        byte[] given = password.getBytes(StandardCharsets.US_ASCII);
        boolean ok = false;
        for (String p : passwords(username)) {
            ok |= MessageDigest.isEqual(given, p.getBytes(StandardCharsets.US_ASCII));
        }
        return ok;
    }

    /** The expiry (unix seconds) in a REST username, or -1 if it is not of the form {@code digits:rest}. */
    public static long parseExpiry(String username) {
        int colon = username.indexOf(':');
        if (colon <= 0 || colon > 12 || colon == username.length() - 1) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < colon; i++) {
            char c = username.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    /** The participant id part of a REST username, or null if malformed. */
    public static String participantId(String username) {
        return parseExpiry(username) < 0 ? null : username.substring(username.indexOf(':') + 1);
    }

    static String password(byte[] secret, String username) {
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(secret, "HmacSHA1"));
            return Base64.getEncoder().encodeToString(mac.doFinal(username.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA1 unavailable", e);
        }
    }
}
