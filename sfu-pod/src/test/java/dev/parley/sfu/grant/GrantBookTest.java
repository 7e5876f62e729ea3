package dev.parley.sfu.grant;

import dev.parley.platform.grant.Grant;
import dev.parley.platform.grant.PublishRights;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class GrantBookTest {
    private static Grant g(String pid, long version, long epoch, boolean video, long ttl) {
        return new Grant(pid, version, epoch, new PublishRights(true, video, false), true, ttl);
    }

    @Test
    void expiryComesFromTheSfusOwnClockAtReceipt() {
        GrantBook b = new GrantBook();
        long now = 1_000_000_000L;
        assertThat(b.apply(g("a", 1, 5, true, 3000), now)).isEqualTo(GrantBook.Outcome.APPLIED);
        assertThat(b.get("a").mayPublishVideo(now + 2_999_000_000L)).isTrue();
        assertThat(b.get("a").mayPublishVideo(now + 3_000_000_000L)).isFalse();
        assertThat(b.get("a").maySubscribe(now + 3_100_000_000L)).isFalse();
        assertThat(b.get("unknown").maySubscribe(now)).isFalse();
    }

    @Test
    void lowerVersionIgnoredLowerEpochRejectedHigherEpochReplaces() {
        GrantBook b = new GrantBook();
        long now = 0;
        b.apply(g("a", 5, 10, true, 3000), now);
        b.apply(g("b", 1, 10, true, 3000), now);
        assertThat(b.apply(g("a", 4, 10, false, 3000), now)).isEqualTo(GrantBook.Outcome.IGNORED_OLD_VERSION);
        assertThat(b.get("a").video()).isTrue();
        assertThat(b.apply(g("a", 9, 9, false, 3000), now)).isEqualTo(GrantBook.Outcome.STALE_EPOCH);
        assertThat(b.get("a").video()).isTrue();
        // a new owner (higher epoch) voids everything the old one granted, even with a lower version
        assertThat(b.apply(g("a", 1, 11, false, 3000), now)).isEqualTo(GrantBook.Outcome.APPLIED);
        assertThat(b.get("a").video()).isFalse();
        assertThat(b.get("b").maySubscribe(now)).isFalse();
        assertThat(b.highestEpoch()).isEqualTo(11);
        assertThat(b.admitEpoch(10)).isFalse();
    }
}
