package dev.parley.controller.ownership;

import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.TestSfuDouble;
import dev.parley.platform.etcd.EtcdKeys;
import dev.parley.platform.etcd.ProcessLease;
import io.etcd.jetcd.KeyValue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The owner key's life after the first request: released once the meeting ended and the end was enforced
 * ({@link OwnerKeySweeper}), and taken back without any client request after the lease was lost
 * ({@link OwnershipReclaimer}). Real etcd and PostgreSQL; the SFU is the grants-contract double.
 */
class OwnerKeyLifecycleIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, Map.of("PARLEY_OWNER_SWEEP_MILLIS", "300"),
            "controller-a");

    private static ApplicationContext a() {
        return h.controllers.get(0);
    }

    private static KeyValue ownerKey(String m) throws Exception {
        List<KeyValue> kvs = h.etcdClient.getKVClient().get(EtcdKeys.bytes(EtcdKeys.meetingOwner(m)))
                .get(5, TimeUnit.SECONDS).getKvs();
        return kvs.isEmpty() ? null : kvs.get(0);
    }

    private static double counter(String name) {
        return a().getBean(MeterRegistry.class).counter(name).count();
    }

    @Test
    void ownerKeyOfAnEndedMeetingIsReleasedOnlyAfterTheEndWasEnforced() throws Exception {
        Scenario s = new Scenario(h).meeting(false, 0);
        String m = s.meetingId;
        String[] att = s.admittedAttendee(0);
        assertThat(s.transport(0, att[0], att[1], 0, "t-end").status()).isEqualTo(200);
        TestSfuDouble sfu = h.sfus.get(0);
        await().atMost(Duration.ofSeconds(3)).until(() -> sfu.held(m, att[1]) != null);
        KeyValue before = ownerKey(m);
        assertThat(before).isNotNull();
        double releasedBefore = counter("parley_owner_keys_released");

        // the SFU stops answering: the end's revocations cannot be acknowledged, so enforcement stays
        // pending until every old grant has run out (about 3 s + the request timeout)
        sfu.dropGrants(true);
        var end = s.command(0, "{\"type\":\"end_meeting\"}");
        assertThat(end.status()).as(end.raw()).isEqualTo(201);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        boolean sawPendingWithKey = false;
        while (System.nanoTime() < deadline) {
            // read the key first: if it is gone, PostgreSQL must already show the end enforced
            KeyValue kv = ownerKey(m);
            String pending = h.scalar("SELECT count(*) FROM commands WHERE meeting_id = '" + m
                    + "' AND media_enforcement = 'pending'");
            if (kv == null) {
                assertThat(pending).as("owner key released while the end is still pending enforcement").isEqualTo("0");
                break;
            }
            if (!"0".equals(pending)) {
                sawPendingWithKey = true;
            }
            Thread.sleep(100);
        }
        sfu.dropGrants(false);
        assertThat(sawPendingWithKey).as("the end was pending for a while with the key kept").isTrue();
        assertThat(h.scalar("SELECT status FROM meetings WHERE meeting_id = '" + m + "'")).isEqualTo("ended");
        assertThat(ownerKey(m)).as("owner key of the ended meeting").isNull();
        assertThat(a().getBean(Ownership.class).epochIfOwned(UUID.fromString(m))).isNull();
        assertThat(counter("parley_owner_keys_released")).isEqualTo(releasedBefore + 1);

        // idempotent: later rounds find nothing to do, and a key re-created by a late request is released again
        Thread.sleep(1000);
        assertThat(counter("parley_owner_keys_released")).isEqualTo(releasedBefore + 1);
        a().getBean(Ownership.class).route(UUID.fromString(m));
        assertThat(ownerKey(m)).isNotNull();
        await().atMost(Duration.ofSeconds(5)).until(() -> ownerKey(m) == null);
        assertThat(counter("parley_owner_keys_released")).isEqualTo(releasedBefore + 2);
    }

    @Test
    void meetingsDroppedWithTheLeaseAreTakenBackWithoutAnyRequest() throws Exception {
        Scenario s = new Scenario(h).meeting(false, 0);
        String m = s.meetingId;
        String[] att = s.admittedAttendee(0);
        assertThat(s.transport(0, att[0], att[1], 0, "t-cut").status()).isEqualTo(200);
        TestSfuDouble sfu = h.sfus.get(0);
        await().atMost(Duration.ofSeconds(3)).until(() -> sfu.held(m, att[1]) != null);
        long epochBefore = ownerKey(m).getCreateRevision();

        // cut off from etcd: no keep-alive reaches it, the lease expires there and the owner key with it
        ProcessLease lease = a().getBean(ProcessLease.class);
        long oldLease = lease.leaseId();
        lease.haltKeepAlive();
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(() -> ownerKey(m) == null);
        // the last grant runs out at the SFU: no media until someone owns the meeting again
        await().atMost(Duration.ofSeconds(6)).until(() -> !sfu.held(m, att[1]).valid());

        // back: no REST call, no socket; the pod takes the meeting back with a new epoch and pushes grants
        long healed = System.nanoTime();
        lease.resumeKeepAlive();
        await().atMost(Duration.ofSeconds(8)).pollInterval(Duration.ofMillis(100)).until(() -> {
            KeyValue kv = ownerKey(m);
            var held = sfu.held(m, att[1]);
            return kv != null && kv.getCreateRevision() > epochBefore && held.valid()
                    && held.grant().controllerEpoch() == kv.getCreateRevision();
        });
        long backMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healed);
        System.out.println("RECLAIMED_MS=" + backMs);
        KeyValue kv = ownerKey(m);
        assertThat(kv.getLease()).isEqualTo(lease.leaseId()).isNotEqualTo(oldLease);
        assertThat(Long.parseLong(h.scalar("SELECT controller_epoch FROM meetings WHERE meeting_id = '" + m + "'")))
                .isEqualTo(kv.getCreateRevision());
        assertThat(a().getBean(Ownership.class).epochIfOwned(UUID.fromString(m))).isEqualTo(kv.getCreateRevision());
        assertThat(counter("parley_meetings_reclaimed_after_lease_loss")).isGreaterThanOrEqualTo(1);
    }
}
