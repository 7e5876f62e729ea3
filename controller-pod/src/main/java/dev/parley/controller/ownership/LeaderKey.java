package dev.parley.controller.ownership;

import dev.parley.platform.etcd.EtcdKeys;
import dev.parley.platform.etcd.ProcessLease;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;

import java.util.concurrent.TimeUnit;

/**
 * A cluster-wide single-runner job's leadership: the etcd key is created under this process's lease if nobody holds
 * it (one transaction), and we lead while it is ours. It goes with the lease when the process dies. A lease in
 * doubt or an etcd error answers "not leader": the jobs using it are safe with two or zero runners for a moment.
 */
public final class LeaderKey {
    private final Client etcd;
    private final ProcessLease lease;
    private final ByteSequence key;
    private final ByteSequence holder;

    public LeaderKey(Client etcd, ProcessLease lease, String key, String podName) {
        this.etcd = etcd;
        this.lease = lease;
        this.key = EtcdKeys.bytes(key);
        this.holder = EtcdKeys.bytes(podName);
    }

    /** Whether this process holds the key now (taking it when free). */
    public boolean held() {
        if (!lease.isConfirmed()) {
            return false;
        }
        try {
            var r = etcd.getKVClient().txn()
                    .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                    .Then(Op.put(key, holder, PutOption.builder().withLeaseId(lease.leaseId()).build()))
                    .Else(Op.get(key, GetOption.DEFAULT))
                    .commit().get(2, TimeUnit.SECONDS);
            if (r.isSucceeded()) {
                return true;
            }
            var kvs = r.getGetResponses().get(0).getKvs();
            return !kvs.isEmpty() && kvs.get(0).getLease() == lease.leaseId();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            return false;
        }
    }
}
