package dev.parley.controller.media;

import dev.parley.platform.etcd.ProcessLease;
import dev.parley.platform.grant.Grant;

import java.util.concurrent.TimeUnit;

/**
 * The lease-in-doubt gate, in one place: every grant the controller hands out (push, renewal, a transport's
 * grant, a recorder's grants) takes its ttl from here, and a ttl of 0 means "grant nothing, let every grant run out".
 */
public final class LeaseGate {
    /** Safety margin between grant expiry and what the lease vouches for. */
    static final long LEASE_MARGIN_MS = 300;

    private final ProcessLease lease;

    LeaseGate(ProcessLease lease) {
        this.lease = lease;
    }

    /** Grant ttl for now: ≤ 3 s and ending before the lease could expire; 0 = don't grant. */
    long ttlNow() {
        return ttlNow(lease);
    }

    /** {@link #ttlNow()} for a holder of the lease that has no gate of its own (the recorder grants). */
    public static long ttlNow(ProcessLease lease) {
        long ttl = Math.min(Grant.MAX_TTL_MS, lease.confirmedRemainingMillis() - LEASE_MARGIN_MS);
        return ttl < 200 ? 0 : ttl;
    }

    /** The latest moment (nanoTime) a grant with this ttl sent now can live at the SFU. */
    static long expiryFor(long ttl) {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ttl) + SfuClient.GRANT_TIMEOUT.toNanos();
    }
}
