package dev.parley.recorder.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.recorder.manifest.Manifest;
import dev.parley.recorder.storage.ObjectStore;
import dev.parley.recorder.storage.Sha256;
import java.io.InputStream;
import java.util.function.BooleanSupplier;

final class Awaits {
    private Awaits() {
    }

    static void until(BooleanSupplier cond, int seconds) throws InterruptedException {
        until(cond, seconds, () -> "");
    }

    /** As {@link #until(BooleanSupplier, int)}, with what to say about the state when it times out. */
    static void until(BooleanSupplier cond, int seconds, java.util.function.Supplier<String> state)
            throws InterruptedException {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within " + seconds + " s " + state.get());
            }
            Thread.sleep(50);
        }
    }

    /** Every manifest entry's object exists and hashes to the manifest's sha256 (re-computed, not metadata). */
    static void assertChecksumsMatch(ObjectStore store, Manifest m) throws Exception {
        for (Manifest.SegmentEntry s : m.segments) {
            try (InputStream in = store.client().getObject(b -> b.bucket(store.bucket()).key(s.key()))) {
                assertThat(Sha256.of(in)).as(s.key()).isEqualTo(s.sha256());
            }
            assertThat(store.head(s.key()).orElseThrow().size()).isEqualTo(s.size());
        }
    }
}
