package dev.parley.controller.api;

import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/** Concurrent attempts against one controller and a real PostgreSQL: the invariants hold every time. */
class RacesIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");
    static final ExecutorService pool = Executors.newFixedThreadPool(24);

    @AfterAll
    static void down() throws Exception {
        pool.shutdownNow();
    }

    /** Runs the tasks released at the same instant. */
    static <T> List<T> together(List<Callable<T>> tasks) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<T>> fs = new ArrayList<>();
        for (Callable<T> t : tasks) {
            fs.add(pool.submit(() -> {
                go.await();
                return t.call();
            }));
        }
        go.countDown();
        List<T> out = new ArrayList<>();
        for (Future<T> f : fs) {
            out.add(f.get());
        }
        return out;
    }

    @Test
    void sameCreateWithOneKeyFromTenThreadsMakesOneMeetingAndOneOutboxEvent() throws Exception {
        for (int round = 0; round < 3; round++) {
            UUID tenant = UUID.randomUUID();
            String token = ControllerHarness.token(tenant, UUID.randomUUID());
            String key = "create-race-" + round;
            List<Callable<ControllerHarness.Res>> tasks = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                tasks.add(() -> h.call(0, "POST", "/v1/meetings", token, key,
                        "{\"title\":\"Race\",\"waiting_room_enabled\":false,\"encryption_mode\":\"transport\"}"));
            }
            List<ControllerHarness.Res> rs = together(tasks);
            Set<String> ids = new HashSet<>();
            for (var r : rs) {
                assertThat(r.status()).as(r.raw()).isEqualTo(201);
                ids.add(r.text("meeting_id"));
            }
            assertThat(ids).hasSize(1);
            String m = ids.iterator().next();
            assertThat(h.count("SELECT count(*) FROM meetings WHERE tenant_id = '" + tenant + "'")).isEqualTo(1);
            assertThat(h.count("SELECT count(*) FROM outbox_events WHERE meeting_id = '" + m + "'")).isEqualTo(1);
        }
    }

    @Test
    void removeVersusReconnectNeverLeavesARemovedParticipantWithATransport() throws Exception {
        for (int round = 0; round < 8; round++) {
            Scenario s = new Scenario(h).meeting(false);
            String[] a = s.admittedAttendee(0);
            var first = s.transport(0, a[0], a[1], 0, "t-first");
            assertThat(first.status()).as(first.raw()).isEqualTo(200);
            List<Callable<ControllerHarness.Res>> tasks = new ArrayList<>();
            tasks.add(() -> s.command(0, "{\"type\":\"remove_participant\",\"participant_id\":\"" + a[1] + "\"}"));
            for (int i = 0; i < 6; i++) {
                String key = "reconnect-" + i;
                tasks.add(() -> s.transport(0, a[0], a[1], 1, key));
            }
            List<ControllerHarness.Res> rs = together(tasks);
            assertThat(rs.get(0).status()).as(rs.get(0).raw()).isEqualTo(201);
            String state = h.scalar("SELECT admission_state FROM meeting_participants WHERE participant_id = '" + a[1] + "'");
            assertThat(state).isEqualTo("removed");
            // transports granted before the removal committed are fine; none after it
            long removalGen = Long.parseLong(h.scalar("SELECT transport_generation FROM meeting_participants WHERE participant_id = '" + a[1] + "'"));
            var after = s.transport(0, a[0], a[1], removalGen, "after-removal");
            assertThat(after.status()).isEqualTo(403);
            assertThat(after.text("code")).isEqualTo("participant_removed");
            for (int i = 1; i < rs.size(); i++) {
                int st = rs.get(i).status();
                assertThat(st).as(rs.get(i).raw()).isIn(200, 403, 409);
            }
            // the SFU ends up holding a revoked grant (or none) for the removed participant
            String m = s.meetingId;
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5)).until(() -> {
                var held = h.sfus.get(0).held(m, a[1]);
                return held == null || !held.grant().subscribe();
            });
        }
    }

    @Test
    void twoTransferHostAtOnceLeaveExactlyOneHost() throws Exception {
        for (int round = 0; round < 8; round++) {
            Scenario s = new Scenario(h).meeting(false);
            String[] a = s.admittedAttendee(0);
            String[] b = s.admittedAttendee(0);
            List<Callable<ControllerHarness.Res>> tasks = List.of(
                    () -> s.command(0, "{\"type\":\"transfer_host\",\"participant_id\":\"" + a[1] + "\"}"),
                    () -> s.command(0, "{\"type\":\"transfer_host\",\"participant_id\":\"" + b[1] + "\"}"));
            List<ControllerHarness.Res> rs = together(tasks);
            long ok = rs.stream().filter(r -> r.status() == 201).count();
            assertThat(ok).as(rs.toString()).isEqualTo(1);
            assertThat(rs.stream().filter(r -> r.status() == 403).findFirst().orElseThrow().text("code")).isEqualTo("not_host");
            assertThat(h.count("SELECT count(*) FROM meeting_participants WHERE meeting_id = '" + s.meetingId
                    + "' AND role = 'host' AND admission_state = 'admitted'")).isEqualTo(1);
        }
    }

    @Test
    void admitVersusEndNeverAdmitsIntoAnEndedMeeting() throws Exception {
        for (int round = 0; round < 8; round++) {
            Scenario s = new Scenario(h).meeting(true);
            List<String> waiting = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                var j = s.join(0, ControllerHarness.token(s.tenant, UUID.randomUUID()), UUID.randomUUID());
                assertThat(j.text("admission_state")).isEqualTo("waiting");
                waiting.add(j.text("participant_id"));
            }
            List<Callable<ControllerHarness.Res>> tasks = new ArrayList<>();
            tasks.add(() -> s.command(0, "{\"type\":\"end_meeting\"}"));
            for (String p : waiting) {
                tasks.add(() -> s.command(0, "{\"type\":\"admit\",\"participant_id\":\"" + p + "\"}"));
            }
            List<ControllerHarness.Res> rs = together(tasks);
            assertThat(rs.get(0).status()).as(rs.get(0).raw()).isEqualTo(201);
            for (int i = 1; i < rs.size(); i++) {
                assertThat(rs.get(i).status()).as(rs.get(i).raw()).isIn(201, 409, 403);
            }
            assertThat(h.scalar("SELECT status FROM meetings WHERE meeting_id = '" + s.meetingId + "'")).isIn("ending", "ended");
            assertThat(h.count("SELECT count(*) FROM meeting_participants WHERE meeting_id = '" + s.meetingId
                    + "' AND admission_state IN ('admitted','waiting')")).isZero();
            assertThat(h.count("SELECT active_participants FROM meetings WHERE meeting_id = '" + s.meetingId + "'")).isZero();
        }
    }

    @Test
    void simultaneousJoinsNeverExceedTheMeetingLimit() throws Exception {
        UUID tenant = UUID.randomUUID();
        UUID org = UUID.randomUUID();
        String token = ControllerHarness.token(tenant, org);
        var r = h.call(0, "POST", "/v1/meetings", token, "cap-1",
                "{\"title\":\"Small\",\"waiting_room_enabled\":false,\"encryption_mode\":\"transport\",\"max_participants\":5}");
        String m = r.text("meeting_id");
        List<Callable<ControllerHarness.Res>> tasks = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            tasks.add(() -> h.call(0, "POST", "/v1/meetings/" + m + "/participants",
                    ControllerHarness.token(tenant, UUID.randomUUID()), "j", "{\"client_instance_id\":\"" + UUID.randomUUID()
                            + "\",\"display_name\":\"x\"}"));
        }
        List<ControllerHarness.Res> rs = together(tasks);
        assertThat(rs.stream().filter(x -> x.status() == 201).count()).isEqualTo(5);
        assertThat(rs.stream().filter(x -> x.status() == 409).allMatch(x -> "meeting_full".equals(x.text("code")))).isTrue();
        assertThat(h.count("SELECT count(*) FROM meeting_participants WHERE meeting_id = '" + m + "'")).isEqualTo(5);
    }

    @Test
    void simultaneousJoinsNeverExceedTheTenantLimit() throws Exception {
        // a separate controller with a tenant limit of 3
        var ctx = h.startController("controller-cap", java.util.Map.of("PARLEY_TENANT_MAX_CONCURRENT_PARTICIPANTS", "3"));
        int idx = h.controllers.indexOf(ctx);
        UUID tenant = UUID.randomUUID();
        List<String> meetings = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            var r = h.call(idx, "POST", "/v1/meetings", ControllerHarness.token(tenant, UUID.randomUUID()), "t" + i,
                    "{\"title\":\"T\",\"waiting_room_enabled\":true,\"encryption_mode\":\"transport\"}");
            meetings.add(r.text("meeting_id"));
        }
        List<Callable<ControllerHarness.Res>> tasks = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            String m = meetings.get(i % 3);
            tasks.add(() -> h.call(idx, "POST", "/v1/meetings/" + m + "/participants",
                    ControllerHarness.token(tenant, UUID.randomUUID()), "j", "{\"client_instance_id\":\"" + UUID.randomUUID()
                            + "\",\"display_name\":\"x\"}"));
        }
        List<ControllerHarness.Res> rs = together(tasks);
        assertThat(rs.stream().filter(x -> x.status() == 201).count()).isEqualTo(3);
        assertThat(rs.stream().filter(x -> x.status() == 429).count()).isEqualTo(9);
        assertThat(h.count("SELECT active_participants FROM tenant_usage WHERE tenant_id = '" + tenant + "'")).isEqualTo(3);
    }
}
