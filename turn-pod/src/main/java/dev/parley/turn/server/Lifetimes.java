package dev.parley.turn.server;

import dev.parley.turn.config.TurnConfig;

/** The lifetime an Allocate or Refresh grants. */
final class Lifetimes {
    private Lifetimes() {
    }

    /**
     * RFC 8656 §7.2: the default 600 s if less is requested, at most 3600 s, and never past the credential's expiry:
     * an allocation lives only as long as the credential that created it.
     */
    static long granted(long requested, long credentialExpiryMillis, long nowMillis) {
        long l = Math.max(TurnConfig.DEFAULT_LIFETIME, Math.min(requested, TurnConfig.MAX_LIFETIME));
        long credentialLeft = (credentialExpiryMillis - nowMillis) / 1000;
        return Math.max(0, Math.min(l, credentialLeft));
    }
}
