package dev.parley.controller.media;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** One push request in flight per SFU; what is marked meanwhile goes out together in the next request. */
class PushLanesTest {
    record Sent(String pod, List<UUID> ids, CompletableFuture<Void> done) {
    }

    private final List<Sent> sent = new CopyOnWriteArrayList<>();
    private final PushLanes lanes = new PushLanes((pod, ids) -> {
        CompletableFuture<Void> f = new CompletableFuture<>();
        sent.add(new Sent(pod, ids, f));
        return f;
    });

    @Test
    void anIdleLaneSendsAtOnceAndWhatComesMeanwhileGoesTogetherInTheNextRequest() {
        UUID m1 = UUID.randomUUID(), m2 = UUID.randomUUID(), m3 = UUID.randomUUID();
        lanes.mark("sfu-a", m1);
        assertThat(sent).hasSize(1);
        assertThat(sent.get(0).ids()).containsExactly(m1);

        lanes.mark("sfu-a", m2);
        lanes.mark("sfu-a", m3);
        lanes.mark("sfu-a", m2); // marked twice: sent once (with its state at sending time)
        assertThat(sent).as("nothing more while one request is in flight").hasSize(1);

        sent.get(0).done().complete(null);
        assertThat(sent).hasSize(2);
        assertThat(sent.get(1).ids()).containsExactly(m2, m3);

        sent.get(1).done().completeExceptionally(new RuntimeException("timeout")); // a failed request frees the lane too
        lanes.mark("sfu-a", m1);
        assertThat(sent).hasSize(3);
        assertThat(sent.get(2).ids()).containsExactly(m1);
    }

    @Test
    void lanesOfDifferentSfusDoNotWaitForEachOther() {
        UUID m = UUID.randomUUID();
        lanes.mark("sfu-a", m);
        lanes.mark("sfu-b", m);
        assertThat(sent).extracting(Sent::pod).containsExactly("sfu-a", "sfu-b");
    }

    @Test
    void aSenderThatThrowsDoesNotBlockTheLane() {
        AtomicInteger calls = new AtomicInteger();
        PushLanes failing = new PushLanes((pod, ids) -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("boom");
            }
            return CompletableFuture.completedFuture(null);
        });
        failing.mark("sfu-a", UUID.randomUUID());
        failing.mark("sfu-a", UUID.randomUUID());
        assertThat(calls.get()).isEqualTo(2);
    }

    @Test
    void underConcurrencyEveryMarkIsSentAfterItAndNeverTwoRequestsAtOnce() throws Exception {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger maxInFlight = new AtomicInteger();
        AtomicInteger requests = new AtomicInteger();
        Set<UUID> delivered = ConcurrentHashMap.newKeySet();
        ExecutorService answers = Executors.newFixedThreadPool(2);
        PushLanes l = new PushLanes((pod, ids) -> {
            maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            requests.incrementAndGet();
            return CompletableFuture.runAsync(() -> {
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                delivered.addAll(ids);
                inFlight.decrementAndGet();
            }, answers);
        });
        ExecutorService markers = Executors.newFixedThreadPool(8);
        Set<UUID> marked = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 2000; i++) {
            markers.execute(() -> {
                UUID m = UUID.randomUUID();
                marked.add(m);
                l.mark("sfu-a", m);
            });
        }
        markers.shutdown();
        assertThat(markers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        await().atMost(java.time.Duration.ofSeconds(30)).until(() -> delivered.containsAll(marked));
        answers.shutdown();
        assertThat(maxInFlight.get()).isEqualTo(1);
        assertThat(requests.get()).as("coalesced").isLessThan(2000);
    }
}
