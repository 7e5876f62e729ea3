package dev.parley.platform.turn;

import java.time.Instant;

/**
 * An ephemeral TURN credential as handed to a client (RTCIceServer username/credential).
 *
 * @param username  {@code {expiry_unix}:{participant_id}}
 * @param password  base64(HMAC-SHA1(secret, username))
 * @param expiresAt when the TURN server stops accepting it
 */
public record TurnCredential(String username, String password, Instant expiresAt) {
    @Override
    public String toString() {
        return "TurnCredential[username=" + username + ", expiresAt=" + expiresAt + "]"; // password stays out of logs
    }
}
