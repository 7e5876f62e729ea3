package dev.parley.sfu.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.internal.InternalAuth;
import dev.parley.sfu.events.EventPublisher;
import dev.parley.testsupport.net.FreePorts;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Real workers (real sockets and event loops): the port layout and the meeting → worker placement. */
class WorkerPoolTest {
    private static final EventPublisher EVENTS = new EventPublisher(new ObjectMapper(), new InternalAuth("pool-test-secret-0123456789"), "sfu-pool");

    private static WorkerPool pool(int n, int udp, int tcp) throws InterruptedException {
        return new WorkerPool(n, EVENTS, "127.0.0.1", "127.0.0.1", udp, tcp, r -> r.setLoopbackPeersOnly(true));
    }

    @Test
    void workerIBindsTheBasePortsPlusI() throws Exception {
        // a base whose next ports are free too: the OS picks free ports, not free ranges, so try a few
        for (int attempt = 0; ; attempt++) {
            int udp = FreePorts.udp(), tcp = FreePorts.tcp();
            try (WorkerPool p = pool(3, udp, tcp)) {
                for (int i = 0; i < 3; i++) {
                    assertThat(p.worker(i).udpPort()).isEqualTo(udp + i);
                    assertThat(p.worker(i).tcpPort()).isEqualTo(tcp + i);
                    assertThat(p.worker(i).router().endpoint().udpPort()).as("the port the answers announce").isEqualTo(udp + i);
                }
                return;
            } catch (Exception bindFailed) {
                if (attempt == 9) throw bindFailed;
            }
        }
    }

    @Test
    void portZeroGivesEachWorkerItsOwnEphemeralPorts() throws Exception {
        try (WorkerPool p = pool(2, 0, 0)) {
            Set<Integer> ports = new HashSet<>();
            for (MediaWorker w : p.workers()) { ports.add(w.udpPort()); ports.add(-w.tcpPort()); }
            assertThat(ports).hasSize(4);
            Thread t0 = p.worker(0).router().call(Thread::currentThread), t1 = p.worker(1).router().call(Thread::currentThread);
            assertThat(t0).as("each worker its own event loop thread").isNotSameAs(t1);
            assertThat(t0.getName()).startsWith("sfu-w0");
            assertThat(t1.getName()).startsWith("sfu-w1");
        }
    }

    @Test
    void aNewMeetingGoesToTheLeastLoadedWorkerAndStaysThere() throws Exception {
        try (WorkerPool p = pool(2, 0, 0)) {
            MediaWorker a = p.workerFor("a");
            MediaWorker b = p.workerFor("b");
            assertThat(a).isNotSameAs(b);
            for (int i = 0; i < 5; i++) {
                assertThat(p.workerFor("a")).isSameAs(a);
                assertThat(p.workerFor("b")).isSameAs(b);
            }
            assertThat(p.find("a")).containsSame(a);
            assertThat(p.find("never-seen")).isEmpty();
        }
    }
}
