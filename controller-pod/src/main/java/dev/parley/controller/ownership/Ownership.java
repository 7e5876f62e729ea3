package dev.parley.controller.ownership;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.db.Db;
import dev.parley.platform.etcd.ControllerEntry;
import dev.parley.platform.etcd.EtcdKeys;
import dev.parley.platform.etcd.LeaseState;
import dev.parley.platform.etcd.ProcessLease;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Per-meeting ownership. The owner key {@code /parley/v1/meetings/{m}/owner} is created in an etcd
 * transaction (only if absent) under this process's lease; its create revision is the meeting's
 * {@code controller_epoch}. A new owner raises {@code meetings.controller_epoch} (only upward) before it
 * acts, which fences every write of the previous owner in PostgreSQL.
 */
@Singleton
public final class Ownership {
    private static final Logger LOG = LoggerFactory.getLogger(Ownership.class);

    private final Client etcd;
    private final ProcessLease lease;
    private final ParleyConfig cfg;
    private final Db db;
    private final ObjectMapper json = new ObjectMapper();
    private final Map<UUID, Long> owned = new ConcurrentHashMap<>();
    private final CopyOnWriteArrayList<BiConsumer<UUID, Long>> acquiredListeners = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<Consumer<UUID>> lostListeners = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<Consumer<Set<UUID>>> leaseDropListeners = new CopyOnWriteArrayList<>();

    public Ownership(Client etcd, ProcessLease lease, ParleyConfig cfg, Db db) {
        this.etcd = etcd;
        this.lease = lease;
        this.cfg = cfg;
        this.db = db;
        // every owner key hangs off the lease: a lost or replaced lease means we own nothing any more
        lease.addListener((state, id) -> {
            if (state == LeaseState.LOST) {
                dropAll("lease lost");
            } else if (state == LeaseState.CONFIRMED && id != ownedUnder) {
                dropAll("lease replaced");
                ownedUnder = id;
            }
        });
        ownedUnder = lease.leaseId();
    }

    private volatile long ownedUnder;

    public void onAcquired(BiConsumer<UUID, Long> l) {
        acquiredListeners.add(l);
    }

    public void onLost(Consumer<UUID> l) {
        lostListeners.add(l);
    }

    /** Told which meetings were dropped because the process lease was lost or replaced (not superseded). */
    public void onDroppedWithLease(Consumer<Set<UUID>> l) {
        leaseDropListeners.add(l);
    }

    public Set<UUID> ownedMeetings() {
        return Set.copyOf(owned.keySet());
    }

    public Long epochIfOwned(UUID meetingId) {
        return owned.get(meetingId);
    }

    /** Commands are accepted only while the lease is confirmed (seed: on doubt, stop widening rights). */
    public void requireConfirmedLease() {
        if (!lease.isConfirmed()) {
            throw ApiException.unavailable("lease_in_doubt",
                    "this controller cannot confirm its etcd lease; retry shortly");
        }
    }

    /** Finds (or takes) the owner of a meeting that exists. */
    public Route route(UUID meetingId) {
        Long e = owned.get(meetingId);
        if (e != null) {
            return new Route.Local(e);
        }
        requireConfirmedLease();
        String key = EtcdKeys.meetingOwner(meetingId.toString());
        ByteSequence k = EtcdKeys.bytes(key);
        ControllerEntry me = new ControllerEntry(cfg.podName(), cfg.region(), cfg.publicUrl(), cfg.publicUrl(), lease.leaseId());
        try {
            TxnResponse r = etcd.getKVClient().txn()
                    .If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                    .Then(Op.put(k, ByteSequence.from(json.writeValueAsBytes(me)),
                            PutOption.builder().withLeaseId(lease.leaseId()).build()))
                    .Else(Op.get(k, GetOption.DEFAULT))
                    .commit().get(5, TimeUnit.SECONDS);
            if (r.isSucceeded()) {
                long epoch = r.getHeader().getRevision();
                return new Route.Local(takeOver(meetingId, epoch));
            }
            if (r.getGetResponses().isEmpty() || r.getGetResponses().get(0).getKvs().isEmpty()) {
                throw ApiException.unavailable("owner_changed", "meeting ownership is changing; retry");
            }
            KeyValue kv = r.getGetResponses().get(0).getKvs().get(0);
            ControllerEntry owner = json.readValue(kv.getValue().getBytes(), ControllerEntry.class);
            if (kv.getLease() == lease.leaseId()) {
                return new Route.Local(takeOver(meetingId, kv.getCreateRevision()));
            }
            return new Route.Remote(owner);
        } catch (ApiException ae) {
            throw ae;
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("etcd_unavailable", "interrupted");
        } catch (Exception ex) {
            LOG.warn("ownership lookup for {} failed: {}", meetingId, ex.toString());
            throw ApiException.unavailable("etcd_unavailable", "coordination service unavailable; retry");
        }
    }

    /**
     * Serialises take-overs of one meeting (the check, the PostgreSQL round trip and the map update must not
     * interleave for the same meeting). Striped by meeting: one lock for the whole process held every new
     * meeting's first request behind every other meeting's database round trip.
     */
    private final Object[] takeOverLocks = newLocks(64);

    private static Object[] newLocks(int n) {
        Object[] locks = new Object[n];
        for (int i = 0; i < n; i++) {
            locks[i] = new Object();
        }
        return locks;
    }

    /** Raises the epoch in PostgreSQL (only upward) and re-reads state through the listeners. */
    private long takeOver(UUID meetingId, long epoch) {
        synchronized (takeOverLocks[Math.floorMod(meetingId.hashCode(), takeOverLocks.length)]) {
            Long already = owned.get(meetingId);
            if (already != null && already == epoch) {
                return epoch;
            }
            // ONE autocommit statement (atomic on its own): raise the epoch only upward and read what it is
            // now; the outer SELECT sees the row as it was before this statement, so it answers only when
            // the update matched nothing (a newer epoch is there, or the meeting is gone)
            Long current = db.read(c -> {
                try (PreparedStatement ps = c.prepareStatement(
                        "WITH u AS (UPDATE meetings SET controller_epoch = ?, control_seq = 0, updated_at = now() "
                                + "WHERE meeting_id = ? AND controller_epoch < ? RETURNING controller_epoch) "
                                + "SELECT COALESCE((SELECT controller_epoch FROM u), "
                                + "(SELECT controller_epoch FROM meetings WHERE meeting_id = ?))")) {
                    ps.setLong(1, epoch);
                    ps.setObject(2, meetingId);
                    ps.setLong(3, epoch);
                    ps.setObject(4, meetingId);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        long v = rs.getLong(1);
                        return rs.wasNull() ? null : v;
                    }
                }
            });
            if (current == null) {
                throw ApiException.notFound("meeting_not_found", "no such meeting");
            }
            if (current != epoch) {
                throw ApiException.unavailable("owner_changed", "a newer controller epoch exists; retry");
            }
            owned.put(meetingId, epoch);
            LOG.debug("owning meeting {} at controller_epoch {}", meetingId, epoch);
        }
        for (BiConsumer<UUID, Long> l : acquiredListeners) {
            l.accept(meetingId, epoch);
        }
        return epoch;
    }

    /** Called when PostgreSQL or an SFU shows a newer epoch: we are no longer the owner. */
    public void lost(UUID meetingId, long epoch) {
        if (owned.remove(meetingId, epoch)) {
            LOG.warn("no longer owner of meeting {} (epoch {} superseded)", meetingId, epoch);
            for (Consumer<UUID> l : lostListeners) {
                l.accept(meetingId);
            }
        }
    }

    private void dropAll(String why) {
        if (owned.isEmpty()) {
            return;
        }
        LOG.warn("dropping ownership of {} meetings: {}", owned.size(), why);
        Set<UUID> dropped = new HashSet<>();
        for (UUID m : Set.copyOf(owned.keySet())) {
            Long e = owned.get(m);
            if (e != null) {
                lost(m, e);
                dropped.add(m);
            }
        }
        // nobody else learns that these meetings lost their owner: the reclaimer takes them back
        for (Consumer<Set<UUID>> l : leaseDropListeners) {
            l.accept(Set.copyOf(dropped));
        }
    }

    /**
     * Releases a meeting this process owns at {@code epoch} (after it ended): deletes the owner key if it is
     * still the one we created (same create revision), then stops acting as its owner. Idempotent: a key that
     * is already gone or was re-created by someone else is left alone. Returns false when etcd did not answer
     * (we stay owner, so the caller can try again).
     */
    public boolean release(UUID meetingId, long epoch) {
        ByteSequence k = EtcdKeys.bytes(EtcdKeys.meetingOwner(meetingId.toString()));
        try {
            etcd.getKVClient().txn()
                    .If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.createRevision(epoch)))
                    .Then(Op.delete(k, DeleteOption.DEFAULT))
                    .commit().get(5, TimeUnit.SECONDS);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception ex) {
            LOG.warn("releasing the owner key of meeting {} failed: {}", meetingId, ex.toString());
            return false;
        }
        if (owned.remove(meetingId, epoch)) {
            for (Consumer<UUID> l : lostListeners) {
                l.accept(meetingId);
            }
        }
        return true;
    }
}
