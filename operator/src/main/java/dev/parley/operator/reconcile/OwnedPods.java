package dev.parley.operator.reconcile;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;

/** One owner's pods as the informer cache shows them, and the hooks that keep that view ahead of the watch. */
public interface OwnedPods {
    /** Existing pods that are not being deleted, by name. */
    List<Pod> list();

    Optional<Pod> get(String name);

    void created(Pod pod);

    void updated(Pod pod);

    void deleted(String name);
}
