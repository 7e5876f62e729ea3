package dev.parley.platform.etcd;

/** Notified (on the lease's own thread) whenever the lease state or the lease id changes. */
@FunctionalInterface
public interface LeaseListener {
    void onLeaseState(LeaseState state, long leaseId);
}
