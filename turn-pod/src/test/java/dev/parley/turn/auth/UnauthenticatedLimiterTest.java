package dev.parley.turn.auth;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;

import static org.assertj.core.api.Assertions.assertThat;

class UnauthenticatedLimiterTest {
    private static long key(String ip) throws Exception {
        return UnauthenticatedLimiter.sourceKey(InetAddress.getByName(ip));
    }

    private static int granted(UnauthenticatedLimiter l, long key, long second, int tries) {
        int n = 0;
        for (int i = 0; i < tries; i++) {
            if (l.tryAcquire(key, second)) {
                n++;
            }
        }
        return n;
    }

    /**
     * A fixed seed keeps this deterministic: with a random one, a source whose two cells both sit under busier
     * sources (about 0.2 % each here) would get less than its budget — the sketch's one way to be unfair.
     */
    @Test
    void eachSourceGetsExactlyItsBudgetWhateverOthersSend() throws Exception {
        UnauthenticatedLimiter l = new UnauthenticatedLimiter(100, 0x5eed_cafeL);
        for (int i = 2; i < 200; i++) { // 198 flooding sources, far over budget
            assertThat(granted(l, key("127.0.0." + i), 7, 500)).isEqualTo(100);
        }
        // a source that has not sent yet still gets its whole budget in the same second
        assertThat(granted(l, key("127.0.1.1"), 7, 3)).isEqualTo(3);
        // and the flooders their next one only in the next second
        assertThat(granted(l, key("127.0.0.2"), 7, 1)).isZero();
        assertThat(granted(l, key("127.0.0.2"), 8, 150)).isEqualTo(100);
    }

    @Test
    void anIpv6SubscriberPrefixIsOneSource() throws Exception {
        UnauthenticatedLimiter l = new UnauthenticatedLimiter(10, 0x5eed_cafeL);
        assertThat(granted(l, key("2001:db8:1:2::1"), 1, 6)).isEqualTo(6);
        assertThat(granted(l, key("2001:db8:1:2:ffff::9"), 1, 6)).isEqualTo(4); // same /64
        assertThat(granted(l, key("2001:db8:1:3::1"), 1, 6)).isEqualTo(6); // another /64
        assertThat(key("::ffff:10.0.0.1")).isEqualTo(key("10.0.0.1"));
        assertThat(key("2001:db8::")).isNotEqualTo(key("0.0.0.0"));
    }
}
