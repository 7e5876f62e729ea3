package dev.parley.operator.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The status this operator last computed for each primary (by uid), which the next round starts from. With
 * event-driven reconciles the next round often starts right away (this round's own pod delete arrives as an event),
 * before the watch brought this round's status into the cache: read from the cache, the status could still be the
 * one before this round, and a pod the round drained and removed would
 * look like one that vanished mid-drain, a recorder generation it started like a lost one. Only the leader
 * reconciles and a replica that stops leading exits (JOSDK's default), so no other writer can be newer; after a
 * start or failover the status is taken from the resource.
 */
final class LastStatus<S> {
    private final Map<String, S> byUid = new ConcurrentHashMap<>();

    S previous(HasMetadata primary, S fromResource) {
        S s = byUid.get(primary.getMetadata().getUid());
        return s != null ? s : fromResource;
    }

    void computed(HasMetadata primary, S status) {
        byUid.put(primary.getMetadata().getUid(), status);
    }

    void forget(HasMetadata primary) {
        byUid.remove(primary.getMetadata().getUid());
    }
}
