package dev.parley.controller.media;

import dev.parley.controller.media.GrantLedger.MeetingGrants;
import dev.parley.platform.grant.Grant;
import dev.parley.platform.grant.PublishRights;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The grant ledger alone: desired vs acknowledged, and what an acknowledgement asks of the SFUs. */
class GrantLedgerTest {
    private static final PublishRights ALL = new PublishRights(true, true, true);
    private final UUID meeting = UUID.randomUUID();
    private final UUID pid = UUID.randomUUID();
    private final GrantLedger ledger = new GrantLedger();
    private final MeetingGrants g = ledger.open(meeting, 7);

    @Test
    void anOlderVersionNeverReplacesANewerOne() {
        GrantLedger.apply(g, pid, 5, true, ALL, "sfu-a");
        GrantLedger.apply(g, pid, 4, false, PublishRights.NONE, "sfu-a");
        Grant grant = GrantLedger.grantOf(g, pid, 2000);
        assertThat(grant.version()).isEqualTo(5);
        assertThat(grant.controllerEpoch()).isEqualTo(7);
    }

    @Test
    void enforcedOnceAcknowledgedOrEveryOlderGrantRanOut() {
        GrantLedger.apply(g, pid, 1, true, ALL, "sfu-a");
        long now = System.nanoTime();
        GrantLedger.collect(g, 2000, now + 1_000_000_000L, null); // version 1 handed out, lives 1 s more
        GrantLedger.apply(g, pid, 2, false, PublishRights.NONE, "sfu-a");
        assertThat(g.enforced(pid, 2, now)).isFalse();
        assertThat(g.enforced(pid, 2, now + 2_000_000_000L)).as("version 1 ran out").isTrue();
        assertThat(g.enforced(UUID.randomUUID(), 9, now)).as("untracked: no SFU holds it").isTrue();
        GrantLedger.acknowledged(g, "sfu-a", pid, 2);
        assertThat(g.enforced(pid, 2, now)).isTrue();
    }

    @Test
    void anAckFromAnotherSfuIsIgnored() {
        GrantLedger.apply(g, pid, 3, true, ALL, "sfu-a");
        assertThat(GrantLedger.acknowledged(g, "sfu-b", pid, 3)).isNull();
        assertThat(g.enforced(pid, 3, Long.MIN_VALUE + 1)).isTrue(); // nothing older was ever sent
        GrantLedger.collect(g, 2000, System.nanoTime() + 1_000_000_000L, null);
        GrantLedger.apply(g, pid, 4, true, ALL, "sfu-a");
        assertThat(GrantLedger.acknowledged(g, "sfu-b", pid, 4)).isNull();
        assertThat(g.enforced(pid, 4, System.nanoTime())).isFalse();
    }

    @Test
    void aRevokedParticipantIsRemovedOnceThenNoLongerSent() {
        GrantLedger.apply(g, pid, 1, true, ALL, "sfu-a");
        GrantLedger.apply(g, pid, 2, false, PublishRights.NONE, "sfu-a");
        Map<String, List<Grant>> sent = GrantLedger.collect(g, 2000, System.nanoTime(), null);
        assertThat(sent.get("sfu-a")).singleElement().satisfies(gr -> assertThat(gr.version()).isEqualTo(2));
        GrantLedger.AckFollowUp first = GrantLedger.acknowledged(g, "sfu-a", pid, 2);
        assertThat(first.removeAtSfu()).isTrue();
        assertThat(GrantLedger.acknowledged(g, "sfu-a", pid, 2)).as("removed once").isNull();
        assertThat(GrantLedger.collect(g, 2000, System.nanoTime(), null)).isEmpty();
    }

    @Test
    void aMoveReleasesTheOldSfuOnlyOnceTheNewConnectionIsUp() {
        GrantLedger.apply(g, pid, 1, true, ALL, "sfu-a");
        GrantLedger.collect(g, 2000, System.nanoTime() + 2_000_000_000L, null); // sfu-a holds version 1 for 2 s
        GrantLedger.apply(g, pid, 2, true, ALL, "sfu-b");
        assertThat(GrantLedger.acknowledged(g, "sfu-b", pid, 2)).as("the new SFU's ack releases nothing yet").isNull();
        assertThat(GrantLedger.releasing(g)).as("the old SFU still carries it").containsEntry(pid.toString(), "sfu-a");
        assertThat(g.enforced(pid, 2, System.nanoTime())).as("an ack is not enough while the old SFU carries it").isFalse();
        assertThat(GrantLedger.connected(g, pid, "sfu-a")).as("a connection at the old SFU is no move").isNull();
        GrantLedger.Release r = GrantLedger.connected(g, pid, "sfu-b");
        assertThat(r.from()).isEqualTo("sfu-a");
        assertThat(r.to()).isEqualTo("sfu-b");
        assertThat(GrantLedger.connected(g, pid, "sfu-b")).as("released once").isNull();
        assertThat(GrantLedger.releasing(g)).isEmpty();
        assertThat(g.enforced(pid, 2, System.nanoTime())).isTrue();
        assertThat(g.pods()).containsExactly("sfu-b");
    }

    @Test
    void aMoveWhoseNewConnectionNeverComesUpReleasesTheOldSfuAfterTheFallback() {
        GrantLedger.apply(g, pid, 1, true, ALL, "sfu-a");
        GrantLedger.apply(g, pid, 2, true, ALL, "sfu-b");
        long now = System.nanoTime();
        assertThat(GrantLedger.dueReleases(g, now + GrantLedger.RELEASE_FALLBACK_NANOS * 2)).as("not before the new SFU's ack").isEmpty();
        GrantLedger.acknowledged(g, "sfu-b", pid, 2);
        assertThat(GrantLedger.dueReleases(g, System.nanoTime())).as("not yet").isEmpty();
        List<GrantLedger.Release> due = GrantLedger.dueReleases(g, System.nanoTime() + GrantLedger.RELEASE_FALLBACK_NANOS + 1);
        assertThat(due).singleElement().satisfies(x -> assertThat(x.from()).isEqualTo("sfu-a"));
        assertThat(GrantLedger.dueReleases(g, System.nanoTime() + GrantLedger.RELEASE_FALLBACK_NANOS * 2)).as("once").isEmpty();
    }

    @Test
    void movingBackBeforeTheReleaseReleasesTheSfuItLeavesNow() {
        GrantLedger.apply(g, pid, 1, true, ALL, "sfu-a");
        GrantLedger.apply(g, pid, 2, true, ALL, "sfu-b");
        GrantLedger.apply(g, pid, 3, true, ALL, "sfu-a");
        assertThat(GrantLedger.releasing(g)).containsExactly(Map.entry(pid.toString(), "sfu-b"));
        assertThat(GrantLedger.connected(g, pid, "sfu-a").from()).isEqualTo("sfu-b");
    }
}
