package dev.parley.e2e.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every invariant class against hand-made snapshots: one that holds and one that violates it, so each can fail
 * (the chaos run itself only shows they hold on today's code).
 */
class InvariantsTest {
    static final long MS = 1_000_000L;
    static final String M = "m1";

    static Observation.SfuView sfu(String pod, long epoch, Map<String, Long> liveMs) {
        Map<String, Observation.SfuParticipant> ps = new LinkedHashMap<>();
        liveMs.forEach((pid, ms) -> ps.put(pid, new Observation.SfuParticipant(pid, 1, ms)));
        return new Observation.SfuView(pod, 1, Observation.Reach.ANSWERED, Map.of(M, new Observation.SfuMeeting(M, epoch, ps)), ps.size());
    }

    static Observation obs(long ms, long pgEpoch, List<Observation.SfuView> sfus, List<Observation.OwnerView> owners) {
        return new Observation(ms * MS, ms, Map.of(M, pgEpoch), Map.of(M, pgEpoch), sfus, Map.of(M, owners));
    }

    /** Polls every 250 ms with the publisher's grant as given; records them the way the Observer does. */
    static void poll(GrantTimeline t, MediaOnlyWithLiveGrant inv, long ms, long pubLive) {
        Observation o = obs(ms, 5, List.of(sfu("sfu-0", 5, Map.of("pub", pubLive, "sub", 2000L))), List.of());
        t.record(M, "pub", o.nanos(), o.grantState(M, "pub"));
        t.record(M, "sub", o.nanos(), o.grantState(M, "sub"));
        inv.observe(o);
    }

    @Test
    void mediaOnlyWithLiveGrantFlagsPacketsWhileTheGrantWasExpiredEverywhere() {
        GrantTimeline t = new GrantTimeline();
        MediaOnlyWithLiveGrant inv = new MediaOnlyWithLiveGrant(t, () -> 400 * MS);
        for (long ms = 0; ms <= 1000; ms += 250) poll(t, inv, ms, 1500);       // live
        for (long ms = 1250; ms <= 4000; ms += 250) poll(t, inv, ms, 0);       // expired from 1250
        inv.window(new MediaWindow(M, "sub", "pub", 500 * MS, 750 * MS, 500, 750, 12));    // while live: fine
        inv.window(new MediaWindow(M, "sub", "pub", 3000 * MS, 3250 * MS, 3000, 3250, 0)); // nothing: not a check
        inv.window(new MediaWindow(M, "sub", "pub", 1300 * MS, 1500 * MS, 1300, 1500, 3)); // within slack of expiry
        poll(t, inv, 4250, 0);
        assertThat(inv.violations()).isZero();
        assertThat(inv.checks()).isEqualTo(2);
        inv.window(new MediaWindow(M, "sub", "pub", 3000 * MS, 3250 * MS, 3000, 3250, 5)); // 1.75 s after expiry
        poll(t, inv, 4500, 0);
        assertThat(inv.violations()).isEqualTo(1);
        assertThat(inv.examples().get(0)).contains("publisher's grant was expired");
        // browser-counted: 1 s more slack, so 600 ms after the expiry is not proven, 2.3 s after is
        inv.window(new MediaWindow(M, "sub", "pub", 1850 * MS, 2000 * MS, 1850, 2000, 3, true));
        inv.window(new MediaWindow(M, "sub", "pub", 3500 * MS, 3750 * MS, 3500, 3750, 3, true));
        poll(t, inv, 4750, 0);
        assertThat(inv.violations()).isEqualTo(2);
    }

    /** Polls as the Observer records them (with the grant mark), the publisher expired, at SFU epoch {@code epoch}. */
    static void pollExpired(GrantTimeline t, MediaOnlyWithLiveGrant inv, long ms, long epoch, boolean pubPresent) {
        Map<String, Long> live = pubPresent ? Map.of("pub", 0L, "sub", 2000L) : Map.of("sub", 2000L);
        Observation o = obs(ms, epoch, List.of(sfu("sfu-0", epoch, live)), List.of());
        for (String pid : List.of("pub", "sub")) t.record(M, pid, o.nanos(), o.nanos(), o.grantState(M, pid), o.grantMark(M, pid));
        inv.observe(o);
    }

    @Test
    void mediaOnlyWithLiveGrantDoesNotBlameAPushBetweenTwoExpiredPolls() {
        // owner killed: the grant expired at epoch 5; the new owner (epoch 9) grants the participant and revokes it
        // (its removal was pending) between two polls, which both see it expired, then gone
        GrantTimeline t = new GrantTimeline();
        MediaOnlyWithLiveGrant inv = new MediaOnlyWithLiveGrant(t, () -> 100 * MS);
        for (long ms = 0; ms <= 2000; ms += 250) pollExpired(t, inv, ms, 5, true);
        pollExpired(t, inv, 2250, 9, false);
        pollExpired(t, inv, 2500, 9, false);
        inv.window(new MediaWindow(M, "sub", "pub", 2050 * MS, 2200 * MS, 2050, 2200, 5)); // across the push
        pollExpired(t, inv, 2750, 9, false);
        assertThat(inv.checks()).isEqualTo(1);
        assertThat(inv.violations()).as("a push between the polls may have been live").isZero();
        // while nothing was pushed (same epoch and version all along) the same packets are a violation
        inv.window(new MediaWindow(M, "sub", "pub", 1050 * MS, 1200 * MS, 1050, 1200, 5));
        pollExpired(t, inv, 3000, 9, false);
        assertThat(inv.violations()).isEqualTo(1);
    }

    @Test
    void mediaOnlyWithLiveGrantJudgesALateReceiptBySendTime() {
        GrantTimeline t = new GrantTimeline();
        MediaOnlyWithLiveGrant inv = new MediaOnlyWithLiveGrant(t, () -> 400 * MS);
        for (long ms = 0; ms <= 1000; ms += 250) poll(t, inv, ms, 1500);       // live
        for (long ms = 1250; ms <= 4000; ms += 250) poll(t, inv, ms, 0);       // expired from 1250
        // received 1.75 s after the expiry, but sent at 900 ms while the grants were live: the receiver was late
        inv.window(new MediaWindow(M, "sub", "pub", 3000 * MS, 3250 * MS, 3000, 3250, 5, false, 900 * MS));
        poll(t, inv, 4250, 0);
        assertThat(inv.checks()).isEqualTo(1);
        assertThat(inv.violations()).isZero();
        // sent at 2500 ms, after the grant had expired everywhere: forwarded without a live grant
        inv.window(new MediaWindow(M, "sub", "pub", 3000 * MS, 3250 * MS, 3000, 3250, 5, false, 2500 * MS));
        poll(t, inv, 4500, 0);
        assertThat(inv.violations()).isEqualTo(1);
    }

    @Test
    void mediaOnlyWithLiveGrantTakesAPollAsProofOfExpiryOnlyFromItsAnswer() {
        GrantTimeline t = new GrantTimeline();
        MediaOnlyWithLiveGrant inv = new MediaOnlyWithLiveGrant(t, () -> 400 * MS);
        for (long ms = 0; ms <= 750; ms += 250) {                                  // live, answered at once
            t.record(M, "pub", ms * MS, ms * MS, GrantTimeline.State.LIVE);
            t.record(M, "sub", ms * MS, ms * MS, GrantTimeline.State.LIVE);
        }
        // the grant runs out at 1100 ms; the poll sent at 1000 ms is answered at 1400 ms (a loaded SFU) with the
        // snapshot taken after the expiry: it says EXPIRED, but proves nothing before 1400 ms
        for (long ms = 1000; ms <= 3000; ms += 250) {
            t.record(M, "pub", ms * MS, (ms + 400) * MS, GrantTimeline.State.EXPIRED);
            t.record(M, "sub", ms * MS, (ms + 400) * MS, GrantTimeline.State.LIVE);
        }
        // 3 packets sent at 1050 ms (grant live), received 1450-1650 ms: the window reaches back to 1050 ms
        inv.window(new MediaWindow(M, "sub", "pub", 1450 * MS, 1650 * MS, 1450, 1650, 3, false, 1050 * MS));
        inv.observe(obs(3250, 5, List.of(), List.of()));
        assertThat(inv.checks()).isEqualTo(1);
        assertThat(inv.violations()).isZero();
        // sent at 1900 ms, after the 1400 ms answer had shown the expiry: a violation
        inv.window(new MediaWindow(M, "sub", "pub", 2400 * MS, 2600 * MS, 2400, 2600, 3, false, 1900 * MS));
        inv.observe(obs(3500, 5, List.of(), List.of()));
        assertThat(inv.violations()).isEqualTo(1);
    }

    @Test
    void mediaOnlyWithLiveGrantDoesNotBlameAnSfuThatDidNotAnswer() {
        GrantTimeline t = new GrantTimeline();
        MediaOnlyWithLiveGrant inv = new MediaOnlyWithLiveGrant(t, () -> 400 * MS);
        for (long ms = 0; ms <= 3000; ms += 250) {
            Observation o = obs(ms, 5, List.of(new Observation.SfuView("sfu-0", 1, Observation.Reach.UNKNOWN, Map.of(), 0)), List.of());
            t.record(M, "pub", o.nanos(), o.grantState(M, "pub"));
            t.record(M, "sub", o.nanos(), o.grantState(M, "sub"));
            inv.observe(o);
        }
        inv.window(new MediaWindow(M, "sub", "pub", 1000 * MS, 1250 * MS, 1000, 1250, 5));
        inv.observe(obs(3250, 5, List.of(), List.of()));
        assertThat(inv.violations()).isZero();
    }

    @Test
    void liveGrantsOfAnOlderEpochAreAViolation() {
        LiveGrantsOfCurrentEpoch inv = new LiveGrantsOfCurrentEpoch();
        inv.observe(obs(0, 7, List.of(sfu("sfu-0", 7, Map.of("a", 2000L))), List.of()));
        inv.observe(obs(250, 9, List.of(sfu("sfu-0", 7, Map.of("a", 0L))), List.of())); // old epoch, all expired: fine
        assertThat(inv.violations()).isZero();
        inv.observe(obs(500, 9, List.of(sfu("sfu-0", 7, Map.of("a", 1200L))), List.of()));
        assertThat(inv.violations()).isEqualTo(1);
        inv.observe(obs(750, 9, List.of(sfu("sfu-0", 10, Map.of("a", 1200L))), List.of())); // ahead of PostgreSQL
        assertThat(inv.violations()).isEqualTo(2);
    }

    @Test
    void twoReadyOwnersOrFallingEpochsAreViolations() {
        OneActingOwner inv = new OneActingOwner();
        var a = new Observation.OwnerView("controller-0", true, true, true, 5);
        var b = new Observation.OwnerView("controller-1", true, true, false, 0);
        var bOwns = new Observation.OwnerView("controller-1", true, true, true, 8);
        var bOwnsInDoubt = new Observation.OwnerView("controller-1", true, false, true, 8);
        inv.observe(obs(0, 5, List.of(sfu("sfu-0", 5, Map.of())), List.of(a, b)));
        inv.observe(obs(250, 8, List.of(sfu("sfu-0", 8, Map.of())), List.of(a, bOwnsInDoubt)));
        assertThat(inv.violations()).isZero();
        inv.observe(obs(500, 8, List.of(sfu("sfu-0", 8, Map.of())), List.of(a, bOwns)));
        assertThat(inv.violations()).isEqualTo(1);
        inv.observe(obs(750, 6, List.of(sfu("sfu-0", 7, Map.of())), List.of(b))); // PostgreSQL and SFU epochs fell
        assertThat(inv.violations()).isEqualTo(3);
    }

    @Test
    void removedParticipantMediaAfterAppliedIsAViolationEvenIfSeenBeforeAppliedWasKnown() {
        RemovedGetsNoMedia inv = new RemovedGetsNoMedia(() -> 400);
        inv.watch(M, "victim");
        inv.window(new MediaWindow(M, "victim", "a", 0, MS, 1000, 1250, 9));    // before applied: fine
        inv.window(new MediaWindow(M, "b", "victim", 0, MS, 1500, 1750, 4));    // 500 ms after applied: kept, then judged
        inv.window(new MediaWindow(M, "b", "a", 0, MS, 1500, 1750, 40));        // nothing to do with the victim
        inv.removed(M, "victim", 1000);
        assertThat(inv.violations()).isEqualTo(1);
        inv.window(new MediaWindow(M, "victim", "a", 0, MS, 3000, 3250, 0));
        assertThat(inv.violations()).isEqualTo(1);
        inv.window(new MediaWindow(M, "victim", "a", 0, MS, 3250, 3500, 2));
        assertThat(inv.violations()).isEqualTo(2);
        assertThat(inv.checks()).isEqualTo(3);
    }

    @Test
    void mediaBackIsTheEndOfTheLastInterruptionAfterTheHeal() {
        long s = 1_000_000_000L;
        List<long[]> samples = List.of(new long[] {0, 1}, new long[] {s, 1}, new long[] {2 * s, 0}, new long[] {3 * s, 0},
            new long[] {4 * s, 1}, new long[] {5 * s, 0}, new long[] {6 * s, 1}, new long[] {7 * s, 1});
        assertThat(MediaComesBack.backAfter(samples, s, s)).isEqualTo(5000);
        assertThat(MediaComesBack.backAfter(samples, s, 7 * s)).isZero();
        assertThat(MediaComesBack.backAfter(List.of(new long[] {2 * s, 1}), s, s)).isEqualTo(MediaComesBack.NEVER_STOPPED);
        assertThat(MediaComesBack.backAfter(List.of(new long[] {2 * s, 0}), s, s)).isEqualTo(MediaComesBack.NOT_BACK);
        MediaComesBack inv = new MediaComesBack(10_000);
        inv.record("f", M, 3000);
        assertThat(inv.violations()).isZero();
        inv.record("f", M, MediaComesBack.NEVER_STOPPED);
        assertThat(inv.violations()).isZero();
        inv.record("f", M, 12_000);
        inv.record("f", M, MediaComesBack.NOT_BACK);
        assertThat(inv.violations()).isEqualTo(2);
        assertThat(inv.times().get("f")).containsExactly(3000L, 12_000L);
        assertThat(inv.untouched("f")).isEqualTo(1);
    }

    @Test
    void commandsLostDuplicatedOrAppliedTwiceAreViolations() {
        CommandsExactlyOnce inv = new CommandsExactlyOnce();
        CommandsExactlyOnce.Issued ok = inv.track(M, "p", "k1", "set_publish");
        ok.acknowledged = true;
        ok.ids.add("c1");
        ok.ids.add("c1");
        inv.judge(ok, List.of(new CommandsExactlyOnce.Row("c1", "applied", "applied",
            Map.of("command_committed", 1, "command_applied", 1))), true);
        assertThat(inv.violations()).isZero();
        inv.judge(ok, List.of(), false);                                                   // lost
        assertThat(inv.violations()).isEqualTo(1);
        inv.judge(ok, List.of(new CommandsExactlyOnce.Row("c1", "committed", "pending", Map.of()),
            new CommandsExactlyOnce.Row("c2", "committed", "pending", Map.of())), false);  // two rows for one key
        assertThat(inv.violations()).isEqualTo(2);
        inv.judge(ok, List.of(new CommandsExactlyOnce.Row("c1", "applied", "applied",
            Map.of("command_committed", 1, "command_applied", 2))), false);               // applied twice
        assertThat(inv.violations()).isEqualTo(3);
        CommandsExactlyOnce.Issued replayedOther = inv.track(M, "p", "k2", "lock_meeting");
        replayedOther.acknowledged = true;
        replayedOther.ids.addAll(List.of("c3", "c4"));
        inv.judge(replayedOther, List.of(new CommandsExactlyOnce.Row("c3", "applied", "not_required",
            Map.of("command_committed", 1))), true);                                      // replay named another id
        assertThat(inv.violations()).isEqualTo(4);
        inv.judge(ok, List.of(new CommandsExactlyOnce.Row("c1", "committed", "pending",
            Map.of("command_committed", 1))), true);                                      // never applied
        assertThat(inv.violations()).isGreaterThanOrEqualTo(5);
    }

    @Test
    void recordingsMustEndReadyOrPartialAndTileTheirTimeline() throws Exception {
        RecordingsFinishCleanly inv = new RecordingsFinishCleanly();
        JsonNode manifest = Api.JSON.readTree("{\"segments\":[{\"track_id\":\"v\",\"start_ms\":0,\"end_ms\":2000},"
            + "{\"track_id\":\"v\",\"start_ms\":5000,\"end_ms\":7000},{\"track_id\":\"v\",\"start_ms\":7033,\"end_ms\":9000}],"
            + "\"missing_ranges\":[{\"track_id\":\"v\",\"from_ms\":2000,\"to_ms\":5000}]}");
        JsonNode job = Api.JSON.readTree("{\"state\":\"partial\",\"missing_ranges\":[{\"track_id\":\"v\",\"from_ms\":2000,\"to_ms\":5000}]}");
        inv.judge("j", job, manifest);
        assertThat(inv.violations()).isZero();
        JsonNode holey = Api.JSON.readTree("{\"segments\":[{\"track_id\":\"v\",\"start_ms\":0,\"end_ms\":2000},"
            + "{\"track_id\":\"v\",\"start_ms\":5000,\"end_ms\":7000}],\"missing_ranges\":[{\"track_id\":\"v\",\"from_ms\":2000,\"to_ms\":4000}]}");
        inv.judge("j", job, holey);          // API and manifest differ, and a 1 s hole
        assertThat(inv.violations()).isEqualTo(2);
        inv.judge("j", Api.JSON.readTree("{\"state\":\"failed\",\"missing_ranges\":[]}"), null);
        assertThat(inv.violations()).isEqualTo(4);
        inv.judge("j", Api.JSON.readTree("{\"state\":\"ready\",\"missing_ranges\":[{\"track_id\":\"v\",\"from_ms\":1,\"to_ms\":2}]}"),
            Api.JSON.readTree("{\"segments\":[],\"missing_ranges\":[{\"track_id\":\"v\",\"from_ms\":1,\"to_ms\":2}]}"));
        assertThat(inv.violations()).isEqualTo(5);
    }

    @Test
    void resourcesAboveTheBaselineAreViolations() {
        ResourcesBackToBaseline inv = new ResourcesBackToBaseline();
        inv.baseline(Map.of("sfu transports", 0L, "etcd meeting keys", 0L));
        assertThat(inv.atBaseline(Map.of("sfu transports", 0L, "etcd meeting keys", 0L))).isTrue();
        inv.judge(Map.of("sfu transports", 0L, "etcd meeting keys", 0L));
        assertThat(inv.violations()).isZero();
        inv.judge(Map.of("sfu transports", 2L, "etcd meeting keys", 3L));
        assertThat(inv.violations()).isEqualTo(2);
        inv.judge(Map.of("etcd meeting keys", 0L));                                       // not measured: not "held"
        assertThat(inv.violations()).isEqualTo(3);
    }
}
