package dev.parley.platform.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One etcd lease per process. Everything the process owns (meeting owner keys, registry entries) hangs
 * off it, so one keep-alive stream covers thousands of meetings.
 *
 * <p>Why not jetcd's {@code keepAlive(...)} observer: it can stop silently (stream closed, executor
 * stuck) and the owner would keep believing it still owns meetings. Instead we send our own
 * {@code keepAliveOnce} on a fixed schedule and run our own deadline: the lease is CONFIRMED only while
 * the last acknowledged keep-alive was <em>sent</em> less than {@code doubtAfter} ago. The server resets
 * the TTL no earlier than our send time, so {@code sendTime + ttl} is a safe lower bound of the lease's
 * expiry as seen from this process's monotonic clock.
 */
public final class ProcessLease implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessLease.class);

    private final Client client;
    private final long ttlSeconds;
    private final long doubtAfterNanos;
    private final long intervalMillis;
    private final ScheduledExecutorService exec;
    private final List<LeaseListener> listeners = new CopyOnWriteArrayList<>();

    private volatile long leaseId;
    private volatile LeaseState state = LeaseState.STARTING;
    private volatile long lastAckSendNanos;
    private volatile long confirmedUntilNanos;
    private volatile boolean halted;
    private boolean inFlight; // only touched on exec thread

    /**
     * @param ttlSeconds lease TTL (PARLEY_LEASE_TTL_SECONDS)
     * @param doubtAfter how long without an acknowledged keep-alive before the lease is "in doubt";
     *                   must be well below the TTL (default: half of it)
     */
    public ProcessLease(Client client, long ttlSeconds, Duration doubtAfter) {
        if (ttlSeconds < 2) {
            throw new IllegalArgumentException("lease ttl must be >= 2 s");
        }
        if (doubtAfter.toMillis() >= ttlSeconds * 1000) {
            throw new IllegalArgumentException("doubtAfter must be below the ttl");
        }
        this.client = client;
        this.ttlSeconds = ttlSeconds;
        this.doubtAfterNanos = doubtAfter.toNanos();
        this.intervalMillis = Math.max(100, Math.min(doubtAfter.toMillis() / 3, ttlSeconds * 1000 / 5));
        this.exec = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "etcd-process-lease");
            t.setDaemon(true);
            return t;
        });
    }

    public ProcessLease(Client client, long ttlSeconds) {
        this(client, ttlSeconds, Duration.ofMillis(ttlSeconds * 1000 / 2));
    }

    /** Grants the lease (blocking) and starts the keep-alive and deadline timers. */
    public ProcessLease start() {
        try {
            exec.submit(this::grantNewLease).get(15, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("could not grant etcd lease", e);
        }
        if (leaseId == 0) {
            throw new IllegalStateException("could not grant etcd lease");
        }
        exec.scheduleAtFixedRate(this::tick, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
        return this;
    }

    public void addListener(LeaseListener l) {
        listeners.add(l);
    }

    public long leaseId() {
        return leaseId;
    }

    public long ttlSeconds() {
        return ttlSeconds;
    }

    public LeaseState state() {
        return state;
    }

    /** True only while a keep-alive sent less than doubtAfter ago was acknowledged. Computed live. */
    public boolean isConfirmed() {
        return state == LeaseState.CONFIRMED && System.nanoTime() - lastAckSendNanos < doubtAfterNanos;
    }

    /**
     * Milliseconds for which the lease is certainly alive (0 when in doubt). Grants must not outlive it:
     * a partitioned owner must not keep media authorised after a new owner could have taken over.
     */
    public long confirmedRemainingMillis() {
        if (!isConfirmed()) {
            return 0;
        }
        return Math.max(0, (confirmedUntilNanos - System.nanoTime()) / 1_000_000);
    }

    /**
     * Fault injection: stop sending keep-alives as a hung or partitioned process would. Used by tests and
     * failure drills; never called in normal operation.
     */
    public void haltKeepAlive() {
        halted = true;
    }

    public void resumeKeepAlive() {
        halted = false;
    }

    private void tick() {
        try {
            checkDeadline();
            if (halted || inFlight || state == LeaseState.CLOSED) {
                return;
            }
            if (state == LeaseState.LOST) {
                grantNewLease();
                return;
            }
            long id = leaseId;
            long sent = System.nanoTime();
            inFlight = true;
            client.getLeaseClient().keepAliveOnce(id)
                    .orTimeout(Math.max(500, doubtAfterNanos / 1_000_000), TimeUnit.MILLISECONDS)
                    .whenComplete((r, e) -> {
                        try {
                            exec.execute(() -> onKeepAlive(id, sent, r, e));
                        } catch (java.util.concurrent.RejectedExecutionException closed) {
                            // lease closed meanwhile
                        }
                    });
        } catch (RuntimeException e) {
            LOG.warn("lease tick failed: {}", e.toString());
        }
    }

    private void onKeepAlive(long id, long sentNanos, LeaseKeepAliveResponse r, Throwable e) {
        inFlight = false;
        if (id != leaseId || state == LeaseState.CLOSED) {
            return;
        }
        if (e != null) {
            String msg = String.valueOf(rootCause(e).getMessage());
            if (msg.contains("lease not found")) {
                LOG.warn("etcd lease {} is gone (expired or revoked)", Long.toHexString(id));
                setState(LeaseState.LOST);
            } else {
                LOG.debug("keep-alive failed: {}", msg);
            }
            return;
        }
        if (r.getTTL() <= 0) {
            setState(LeaseState.LOST);
            return;
        }
        if (halted) {
            return; // a response that raced with halt does not count
        }
        lastAckSendNanos = sentNanos;
        confirmedUntilNanos = sentNanos + TimeUnit.SECONDS.toNanos(r.getTTL());
        setState(LeaseState.CONFIRMED);
    }

    private void checkDeadline() {
        if (state == LeaseState.CONFIRMED && System.nanoTime() - lastAckSendNanos >= doubtAfterNanos) {
            LOG.warn("etcd lease {} in doubt: no acknowledged keep-alive for {} ms", Long.toHexString(leaseId),
                    (System.nanoTime() - lastAckSendNanos) / 1_000_000);
            setState(LeaseState.IN_DOUBT);
        }
    }

    private void grantNewLease() {
        try {
            long sent = System.nanoTime();
            long id = client.getLeaseClient().grant(ttlSeconds).get(5, TimeUnit.SECONDS).getID();
            leaseId = id;
            lastAckSendNanos = sent;
            confirmedUntilNanos = sent + TimeUnit.SECONDS.toNanos(ttlSeconds);
            LOG.info("etcd lease {} granted (ttl {} s)", Long.toHexString(id), ttlSeconds);
            setState(LeaseState.CONFIRMED);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        } catch (Exception ex) {
            LOG.warn("could not grant etcd lease: {}", rootCause(ex).toString());
        }
    }

    private void setState(LeaseState s) {
        LeaseState old = state;
        state = s;
        if (old != s) {
            for (LeaseListener l : listeners) {
                try {
                    l.onLeaseState(s, leaseId);
                } catch (RuntimeException ex) {
                    LOG.warn("lease listener failed", ex);
                }
            }
        }
    }

    private static Throwable rootCause(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    /** Stops the timers and revokes the lease (its keys disappear at once). */
    @Override
    public void close() {
        long id = leaseId;
        state = LeaseState.CLOSED;
        exec.shutdownNow();
        if (id != 0) {
            try {
                client.getLeaseClient().revoke(id).get(2, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.debug("lease revoke failed: {}", e.toString());
            }
        }
    }
}
