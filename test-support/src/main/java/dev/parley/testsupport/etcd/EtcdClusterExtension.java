package dev.parley.testsupport.etcd;

import java.time.Duration;
import java.util.List;

/**
 * A three-member real etcd cluster for failover tests:
 * <pre>{@code
 * @RegisterExtension
 * static EtcdClusterExtension etcd = new EtcdClusterExtension();
 * etcd.kill(0);     // SIGKILL one member; the other two keep quorum
 * etcd.restart(0);  // back on the same ports and data
 * }</pre>
 */
public class EtcdClusterExtension extends EtcdExtension {

    public EtcdClusterExtension() {
        super(3);
    }

    public List<EtcdProcess> members() {
        return cluster().members();
    }

    public EtcdProcess member(int index) {
        return cluster().member(index);
    }

    /** SIGKILL member {@code index}. */
    public void kill(int index) {
        member(index).kill();
    }

    /** SIGTERM member {@code index}. */
    public void stop(int index) {
        member(index).stop();
    }

    /** Starts member {@code index} again (same ports, same data) and waits until it rejoined with a leader. */
    public void restart(int index) {
        EtcdProcess m = member(index);
        m.restart();
        m.awaitHealthy(Duration.ofSeconds(30));
    }

    /** Index of the current raft leader among the running members, or -1 if none is known right now. */
    public int leaderIndex() {
        List<EtcdProcess> all = members();
        for (int i = 0; i < all.size(); i++) {
            EtcdProcess m = all.get(i);
            EtcdProcess.MemberStatus st = m.isRunning() ? m.status() : null;
            if (st != null && st.isLeader()) {
                return i;
            }
        }
        return -1;
    }

    /** Only members that are running right now, e.g. to build a client that avoids a dead one. */
    public List<String> runningEndpoints() {
        return members().stream().filter(EtcdProcess::isRunning).map(EtcdProcess::clientUrl).toList();
    }
}
