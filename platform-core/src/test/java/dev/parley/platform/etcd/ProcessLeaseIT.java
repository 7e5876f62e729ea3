package dev.parley.platform.etcd;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.PutOption;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class ProcessLeaseIT {
    static EtcdTestServer etcd;
    static Client client;

    @BeforeAll
    static void up() throws Exception {
        etcd = EtcdTestServer.start();
        client = etcd.newClient();
    }

    @AfterAll
    static void down() throws Exception {
        client.close();
        etcd.close();
    }

    private static boolean exists(String key) throws Exception {
        return client.getKVClient().get(EtcdKeys.bytes(key)).get(5, TimeUnit.SECONDS).getCount() > 0;
    }

    @Test
    void keysUnderTheLeaseSurviveWhileKeptAliveAndVanishAfterExpiry() throws Exception {
        try (ProcessLease lease = new ProcessLease(client, 2).start()) {
            String key = "/parley/v1/test/lease-expiry";
            client.getKVClient().put(EtcdKeys.bytes(key), EtcdKeys.bytes("x"),
                    PutOption.builder().withLeaseId(lease.leaseId()).build()).get();
            Thread.sleep(3000); // longer than the TTL: only the keep-alive keeps it
            assertThat(exists(key)).isTrue();
            assertThat(lease.isConfirmed()).isTrue();

            lease.haltKeepAlive();
            await().atMost(Duration.ofSeconds(5)).until(() -> !exists(key));
            assertThat(lease.isConfirmed()).isFalse();
        }
    }

    @Test
    void haltedKeepAliveIsInDoubtBeforeTheTtlRunsOut() throws Exception {
        try (ProcessLease lease = new ProcessLease(client, 4, Duration.ofMillis(1500)).start()) {
            List<LeaseState> seen = new CopyOnWriteArrayList<>();
            lease.addListener((s, id) -> seen.add(s));
            String key = "/parley/v1/test/doubt";
            client.getKVClient().put(EtcdKeys.bytes(key), EtcdKeys.bytes("x"),
                    PutOption.builder().withLeaseId(lease.leaseId()).build()).get();
            Thread.sleep(500);
            long halted = System.nanoTime();
            lease.haltKeepAlive();
            await().atMost(Duration.ofSeconds(3)).until(() -> lease.state() == LeaseState.IN_DOUBT);
            long doubtAfterMs = (System.nanoTime() - halted) / 1_000_000;
            assertThat(lease.isConfirmed()).isFalse();
            assertThat(lease.confirmedRemainingMillis()).isZero();
            assertThat(seen).contains(LeaseState.IN_DOUBT);
            // in doubt while etcd still holds the key: we stop acting before the lease can expire
            assertThat(exists(key)).isTrue();
            assertThat(doubtAfterMs).isLessThan(4000);
        }
    }

    @Test
    void lostLeaseIsReplacedByANewOne() throws Exception {
        try (ProcessLease lease = new ProcessLease(client, 2).start()) {
            long first = lease.leaseId();
            client.getLeaseClient().revoke(first).get();
            await().atMost(Duration.ofSeconds(5)).until(() -> lease.leaseId() != first && lease.isConfirmed());
        }
    }

    @Test
    void registrarAndWatcherShowEntriesAndDropThemWithTheLease() throws Exception {
        ObjectMapper json = new ObjectMapper();
        try (ProcessLease lease = new ProcessLease(client, 2).start();
             RegistryWatcher<SfuEntry> watcher = RegistryWatcher.sfus(client, "r1", json).start()) {
            SfuEntry e = new SfuEntry("sfu-0", "r1", SfuEntry.ACTIVE, "http://127.0.0.1:1", "127.0.0.1",
                    5000, 5001, SfuEntry.SfuLoad.idle(), System.currentTimeMillis());
            Registrar reg = new Registrar(client, lease, EtcdKeys.sfu("r1", "sfu-0"), () -> e, json,
                    Duration.ofSeconds(1)).start();
            await().atMost(Duration.ofSeconds(5)).until(() -> watcher.get("sfu-0") != null);
            assertThat(watcher.get("sfu-0").internalUrl()).isEqualTo("http://127.0.0.1:1");
            // a garbage entry is skipped, not fatal
            client.getKVClient().put(EtcdKeys.bytes(EtcdKeys.sfu("r1", "junk")), EtcdKeys.bytes("{not json")).get();
            Thread.sleep(300);
            assertThat(watcher.entries()).containsOnlyKeys("sfu-0");
            lease.haltKeepAlive();
            await().atMost(Duration.ofSeconds(6)).until(() -> watcher.get("sfu-0") == null);
            reg.close();
        }
    }
}
