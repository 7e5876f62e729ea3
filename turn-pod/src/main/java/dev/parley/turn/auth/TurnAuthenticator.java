package dev.parley.turn.auth;

import dev.parley.media.stun.StunAttribute;
import dev.parley.media.stun.StunMessage;
import dev.parley.platform.turn.TurnCredentials;
import dev.parley.turn.metrics.TurnMetrics.AuthFailure;

/**
 * Long-term credential check (RFC 8489 §9.2) for TURN REST usernames {@code {expiry}:{participant}}: the request
 * must carry USERNAME, REALM, NONCE and MESSAGE-INTEGRITY; the nonce must be ours, for this client address and not
 * stale; the username must not have expired; and the integrity must verify under the key derived from one of the
 * configured secrets (current first). Keeps no state per request; the derived keys of verified usernames are
 * cached per thread ({@link LongTermKeyCache}).
 */
public final class TurnAuthenticator {
    public enum Outcome { OK, CHALLENGE, BAD_REQUEST, STALE_NONCE, UNAUTHORIZED }

    /** What the check concluded; {@code key}, {@code username}, {@code participant} are set only for OK. */
    public record Result(Outcome outcome, AuthFailure failure, byte[] key, String username, String participant,
                         long credentialExpiryMillis) {
        static Result fail(Outcome o, AuthFailure f) {
            return new Result(o, f, null, null, null, 0);
        }

        public boolean ok() {
            return outcome == Outcome.OK;
        }
    }

    private final String realm;
    private final TurnCredentials credentials;
    private final NonceService nonces;
    /** Per thread (event loop): derived keys of recently verified usernames. */
    private final ThreadLocal<LongTermKeyCache> keyCache = ThreadLocal.withInitial(LongTermKeyCache::new);

    public TurnAuthenticator(String realm, TurnCredentials credentials, NonceService nonces) {
        this.realm = realm;
        this.credentials = credentials;
        this.nonces = nonces;
    }

    /** IP bytes followed by the two port bytes: what a nonce is bound to. */
    public static byte[] addressBytes(java.net.InetSocketAddress a) {
        byte[] ip = a.getAddress().getAddress();
        byte[] out = java.util.Arrays.copyOf(ip, ip.length + 2);
        out[ip.length] = (byte) (a.getPort() >>> 8);
        out[ip.length + 1] = (byte) a.getPort();
        return out;
    }

    public String realm() {
        return realm;
    }

    public String newNonce(byte[] clientAddress, long nowMillis) {
        return nonces.issue(clientAddress, nowMillis / 1000);
    }

    /** @param clientAddress the client's IP and port bytes ({@link #addressBytes}); the nonce is bound to them */
    public Result authenticate(StunMessage m, byte[] clientAddress, long nowMillis) {
        if (!m.hasIntegrity()) {
            return Result.fail(Outcome.CHALLENGE, AuthFailure.MISSING_INTEGRITY);
        }
        String username = m.string(StunAttribute.USERNAME);
        String reqRealm = m.string(StunAttribute.REALM);
        String nonce = m.string(StunAttribute.NONCE);
        if (username == null || reqRealm == null || nonce == null) {
            return Result.fail(Outcome.BAD_REQUEST, AuthFailure.BAD_REQUEST);
        }
        if (nonces.check(nonce, clientAddress, nowMillis / 1000) != NonceService.Check.VALID) {
            // forged, replayed from another address, or too old: all get a fresh nonce (438)
            return Result.fail(Outcome.STALE_NONCE, AuthFailure.STALE_NONCE);
        }
        if (!realm.equals(reqRealm)) {
            return Result.fail(Outcome.UNAUTHORIZED, AuthFailure.WRONG_REALM);
        }
        long expiry = TurnCredentials.parseExpiry(username);
        if (expiry < 0) {
            return Result.fail(Outcome.UNAUTHORIZED, AuthFailure.MALFORMED_USERNAME);
        }
        if (expiry * 1000 <= nowMillis) {
            return Result.fail(Outcome.UNAUTHORIZED, AuthFailure.EXPIRED);
        }
        LongTermKeyCache cache = keyCache.get();
        byte[][] cached = cache.get(username);
        byte[][] keys = cached != null ? cached : LongTermKeyCache.derive(credentials, username, realm);
        for (byte[] key : keys) {
            if (m.verifyIntegrity(key)) {
                if (cached == null) {
                    cache.put(username, keys); // only verified usernames: a forger cannot fill the cache
                }
                return new Result(Outcome.OK, null, key, username, TurnCredentials.participantId(username),
                        expiry * 1000);
            }
        }
        return Result.fail(Outcome.UNAUTHORIZED, AuthFailure.BAD_INTEGRITY);
    }
}
