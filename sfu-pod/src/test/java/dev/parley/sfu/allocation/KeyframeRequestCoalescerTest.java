package dev.parley.sfu.allocation;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class KeyframeRequestCoalescerTest {

    @Test
    void atMostOneRequestPerStreamPerInterval() {
        KeyframeRequestCoalescer c = new KeyframeRequestCoalescer(500);
        assertThat(c.request(1111, 1_000)).isTrue();
        for (int i = 0; i < 50; i++) { // 50 subscribers' PLIs and allocator switches in a burst
            assertThat(c.request(1111, 1_000 + i * 5)).isFalse();
        }
        assertThat(c.request(2222, 1_100)).as("another stream is independent").isTrue();
        List<Long> sent = new ArrayList<>();
        assertThat(c.drainDue(1_400, sent::add)).as("interval not over").isZero();
        assertThat(c.drainDue(1_500, sent::add)).isEqualTo(1);
        assertThat(sent).containsExactly(1111L);
        assertThat(c.drainDue(2_500, sent::add)).as("the burst became exactly one deferred request").isZero();
        assertThat(c.request(1111, 1_700)).isFalse();
    }

    @Test
    void aKeyframeSatisfiesDeferredRequests() {
        KeyframeRequestCoalescer c = new KeyframeRequestCoalescer(500);
        assertThat(c.request(7, 0)).isTrue();
        assertThat(c.request(7, 100)).isFalse();
        c.onKeyframe(7);
        assertThat(c.drainDue(1_000, k -> { throw new AssertionError("nothing due"); })).isZero();
        assertThat(c.request(7, 1_000)).isTrue();
    }
}
