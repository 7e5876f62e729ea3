package dev.parley.operator.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import java.util.function.BiConsumer;

/**
 * Writes a primary's status and puts the result into JOSDK's primary cache. With event-driven reconciles the next
 * round often starts right after this one (its own pod delete arrives as an event); {@code UpdateControl.patchStatus}
 * does not cache, so that round could read the status as it was before and, for example, take a pod this round
 * drained and removed for one that vanished mid-drain, or a recorder generation it just started for a lost one.
 * The status is replaced whole (optimistic locking, retried on conflict against a fresh read).
 */
final class StatusWriter {
    private StatusWriter() {
    }

    static <P extends HasMetadata, S> void write(P primary, Context<P> context, S status, BiConsumer<P, S> setter) {
        PrimaryUpdateAndCacheUtils.updateStatusAndCacheResource(primary, context, p -> {
            setter.accept(p, status);
            return p;
        });
    }
}
