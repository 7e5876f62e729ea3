package dev.parley.platform.etcd;

/** What this process knows about its etcd lease. */
public enum LeaseState {
    /** Not granted yet. */
    STARTING,
    /** A keep-alive was acknowledged recently enough that the lease is certainly still alive. */
    CONFIRMED,
    /** No acknowledged keep-alive within the doubt window: act as if we had lost it (stop renewing grants). */
    IN_DOUBT,
    /** etcd told us the lease is gone (expired or revoked); everything held under it is gone. */
    LOST,
    CLOSED
}
