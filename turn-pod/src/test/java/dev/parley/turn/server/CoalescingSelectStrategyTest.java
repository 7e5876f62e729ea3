package dev.parley.turn.server;

import io.netty.channel.SelectStrategy;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CoalescingSelectStrategyTest {
    private static final long WINDOW = TimeUnit.MILLISECONDS.toNanos(40);
    private final CoalescingSelectStrategy strategy = new CoalescingSelectStrategy(WINDOW);

    @Test
    void afterIoTheLoopSleepsOneWindowThenHandlesWhatArrivedWithoutBlocking() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        long t0 = System.nanoTime();
        int s = strategy.calculateStrategy(() -> { polls.incrementAndGet(); return 7; }, false);
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(WINDOW);
        assertThat(s).isEqualTo(7); // the events epoll_wait(0) found are processed at once
        assertThat(polls).hasValue(1);
    }

    @Test
    void aBusyLoopPollsAgainAtOnce() throws Exception {
        strategy.calculateStrategy(() -> CoalescingSelectStrategy.BUSY, false); // sleeps once, finds a full batch
        long t0 = System.nanoTime();
        assertThat(strategy.calculateStrategy(() -> 2, false)).isEqualTo(2); // no sleep after a full batch
        assertThat(System.nanoTime() - t0).isLessThan(WINDOW);
        t0 = System.nanoTime();
        strategy.calculateStrategy(() -> 2, false); // a small batch: sleep again
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(WINDOW);
    }

    @Test
    void nothingArrivedDuringTheWindowMeansBlockInEpollWait() throws Exception {
        assertThat(strategy.calculateStrategy(() -> 0, false)).isEqualTo(SelectStrategy.SELECT);
    }

    @Test
    void pendingTasksAreNotDelayed() throws Exception {
        long t0 = System.nanoTime();
        assertThat(strategy.calculateStrategy(() -> 0, true)).isZero(); // run the tasks, do not block
        assertThat(strategy.calculateStrategy(() -> 3, true)).isEqualTo(3);
        assertThat(System.nanoTime() - t0).isLessThan(WINDOW);
    }

    @Test
    void theWindowMustBePositive() {
        assertThatThrownBy(() -> new CoalescingSelectStrategy(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
