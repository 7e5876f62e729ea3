package dev.parley.operator.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.function.BiConsumer;

/**
 * Writes a primary's status as a JSON patch against the resource as the API server has it now (a fresh read), not
 * against the primary this round got from the cache. {@code UpdateControl.patchStatus} diffs against the cached
 * primary; when the round runs before the watch brought the previous round's status (event-driven rounds often do),
 * that diff addresses list entries the server no longer has (a 422, and the mock API server in the tests hangs).
 * The next round starts from {@link LastStatus}, so it does not depend on the cache either.
 */
final class StatusWriter {
    private StatusWriter() {
    }

    static <P extends HasMetadata, S> void write(Context<P> context, P primary, Class<P> type, S status,
                                                 BiConsumer<P, S> setter) {
        context.getClient().resources(type).inNamespace(primary.getMetadata().getNamespace())
                .withName(primary.getMetadata().getName())
                .editStatus(p -> {
                    setter.accept(p, status);
                    return p;
                });
    }
}
