package dev.parley.turn.auth;

import dev.parley.media.stun.StunIntegrity;
import dev.parley.platform.turn.TurnCredentials;

/**
 * The long-term keys of recently seen REST usernames, one per configured secret. Deriving them costs an HMAC-SHA1
 * per secret, SASLprep and an MD5 — each through a JCA {@code getInstance} look-up — and a client repeats the same
 * username on every request of its allocation (Allocate, ChannelBind, CreatePermission, Refresh), so a relay that
 * derives them once per username does a fraction of that work, and the JIT has far less code to keep compiling.
 *
 * <p>Direct-mapped by the username's hash and confined to one thread (one instance per event loop): no locks; a
 * collision just replaces the entry. Only keys whose MESSAGE-INTEGRITY verified are kept, so an unauthenticated
 * client cannot fill it; the secrets never change during the process, so an entry is never stale (the username's
 * expiry is checked on every request, before the cache).
 */
final class LongTermKeyCache {
    static final int SLOTS = 1024; // power of two

    private final String[] usernames = new String[SLOTS];
    private final byte[][][] keys = new byte[SLOTS][][];

    /** The cached keys of {@code username} (one per secret, current first), or null. */
    byte[][] get(String username) {
        int slot = slot(username);
        String u = usernames[slot];
        return u != null && u.equals(username) ? keys[slot] : null;
    }

    void put(String username, byte[][] derived) {
        int slot = slot(username);
        usernames[slot] = username;
        keys[slot] = derived;
    }

    /** Derives the key of {@code username} under every secret (not cached: see {@link #put}). */
    static byte[][] derive(TurnCredentials credentials, String username, String realm) {
        String[] passwords = credentials.passwords(username);
        byte[][] out = new byte[passwords.length][];
        for (int i = 0; i < passwords.length; i++) {
            out[i] = StunIntegrity.longTermKey(username, realm, passwords[i]);
        }
        return out;
    }

    private static int slot(String username) {
        int h = username.hashCode();
        return (h ^ (h >>> 16)) & (SLOTS - 1);
    }
}
