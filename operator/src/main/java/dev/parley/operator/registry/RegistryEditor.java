package dev.parley.operator.registry;

import dev.parley.operator.model.PoolKind;

/** The few registry writes the operator makes during a drain. */
public interface RegistryEditor {
    /** Sets state DRAINING on the pod's entry, keeping the pod's lease. Returns false when there is no entry. */
    boolean markDraining(PoolKind kind, String region, String pod);

    /** Removes the pod's entry (phase 5, or a dead pod). Idempotent. */
    void remove(PoolKind kind, String region, String pod);
}
