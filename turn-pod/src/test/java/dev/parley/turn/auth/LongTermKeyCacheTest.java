package dev.parley.turn.auth;

import dev.parley.media.stun.StunIntegrity;
import dev.parley.platform.turn.TurnCredentials;
import dev.parley.platform.turn.TurnSecrets;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LongTermKeyCacheTest {
    private final TurnCredentials credentials = new TurnCredentials(TurnSecrets.of("current", "previous"));

    @Test
    void derivesOneKeyPerSecretCurrentFirst() {
        String user = "1900000000:alice";
        byte[][] keys = LongTermKeyCache.derive(credentials, user, "parley");
        String[] passwords = credentials.passwords(user);
        assertThat(keys.length).isEqualTo(2);
        assertThat(keys[0]).isEqualTo(StunIntegrity.longTermKey(user, "parley", passwords[0]));
        assertThat(keys[1]).isEqualTo(StunIntegrity.longTermKey(user, "parley", passwords[1]));
        assertThat(keys[0]).isNotEqualTo(keys[1]);
    }

    @Test
    void returnsOnlyTheUsernameItWasGiven() {
        LongTermKeyCache cache = new LongTermKeyCache();
        assertThat(cache.get("1900000000:alice")).isNull();
        byte[][] keys = LongTermKeyCache.derive(credentials, "1900000000:alice", "parley");
        cache.put("1900000000:alice", keys);
        assertThat(cache.get("1900000000:alice")).isSameAs(keys);
        assertThat(cache.get("1900000000:bob")).isNull();
        assertThat(cache.get("1900000001:alice")).isNull();
    }

    @Test
    void aCollidingUsernameReplacesTheEntryAndStaysBounded() {
        LongTermKeyCache cache = new LongTermKeyCache();
        // more usernames than slots: each lookup answers only for its own username, never another's keys
        for (int i = 0; i < 3 * LongTermKeyCache.SLOTS; i++) {
            String u = "1900000000:user" + i;
            cache.put(u, new byte[][] {{(byte) i}});
        }
        int hits = 0;
        for (int i = 0; i < 3 * LongTermKeyCache.SLOTS; i++) {
            byte[][] k = cache.get("1900000000:user" + i);
            if (k != null) {
                assertThat(k[0][0]).isEqualTo((byte) i);
                hits++;
            }
        }
        assertThat(hits).isPositive().isLessThanOrEqualTo(LongTermKeyCache.SLOTS);
    }
}
