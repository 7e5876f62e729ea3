package dev.parley.controller.media;

import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.control.SessionHub;
import dev.parley.controller.db.Db;
import dev.parley.controller.enforcement.CommittedChange;
import dev.parley.controller.enforcement.Enforcement;
import dev.parley.controller.media.GrantLedger.MeetingGrants;
import dev.parley.controller.ownership.Ownership;
import dev.parley.controller.participant.ParticipantRow;
import dev.parley.platform.etcd.ProcessLease;
import dev.parley.platform.grant.Grant;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Media authorisation at the SFUs for the meetings we own, the face the other packages call. The work is split:
 * {@link GrantLedger} (desired vs acknowledged per participant and SFU, no I/O), {@link GrantPusher} (pushes after
 * a commit or a transport, acknowledgements), {@link GrantRenewer} (about every second, batched, old-SFU
 * fallback), {@link LeaseGate} (the ttl, and nothing while the lease is in doubt) and {@link GrantStore} (SQL).
 * Pending commands are {@link Enforcement}'s: this side reports acknowledgements to it.
 */
@Context
@Singleton
public final class GrantService {
    private final GrantLedger ledger = new GrantLedger();
    private final GrantStore store;
    private final LeaseGate gate;
    private final Enforcement enforcement;
    private final GrantPusher pusher;
    private final GrantRenewer renewer;

    public GrantService(Db db, Ownership ownership, ProcessLease lease, SfuClient sfus, SfuSelector selector,
                        Enforcement enforcement, SessionHub sessions, MeterRegistry meters, ParleyConfig cfg) {
        this.store = new GrantStore(db);
        this.gate = new LeaseGate(lease);
        this.enforcement = enforcement;
        Counter released = Counter.builder("parley_sfu_participants_released")
                .description("participants released (DELETE) at the SFU they moved away from").register(meters);
        OldSfuFallback fallback = new OldSfuFallback();
        this.pusher = new GrantPusher(ledger, gate, fallback, sfus, selector, sessions, ownership, enforcement, released);
        this.renewer = new GrantRenewer(ledger, gate, fallback, pusher, selector, sessions, enforcement);
        meters.gauge("parley_active_meetings", ledger.meetings(), Map::size);
        ownership.onAcquired(this::acquired);
        ownership.onLost(meetingId -> {
            ledger.remove(meetingId);
            enforcement.lost(meetingId);
        });
        renewer.start(cfg.grantRenewMillis());
    }

    private void acquired(UUID meetingId, long epoch) {
        MeetingGrants g = ledger.open(meetingId, epoch);
        enforcement.acquired(meetingId, epoch);
        List<GrantStore.InheritedCommand> inherited = store.loadOnAcquire(meetingId, g);
        for (GrantStore.InheritedCommand cmd : inherited) {
            // we don't know what the old owner pushed: wait for our (higher-epoch) grants to be
            // acknowledged everywhere, or for every old grant to run out
            enforcement.inherit(meetingId, cmd.commandId(), cmd.endsMeeting(), GrantLedger.currentVersions(g));
        }
        // unknown grants from the previous epoch: assume the longest they could live
        GrantLedger.assumeOldGrants(g, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(
                Grant.MAX_TTL_MS + SfuClient.GRANT_TIMEOUT.toMillis()));
    }

    /** Re-reads the participants that have (or had) a transport (one autocommit SELECT). */
    public void reload(UUID meetingId) {
        MeetingGrants g = ledger.get(meetingId);
        if (g != null) {
            store.reload(meetingId, g);
        }
    }

    /**
     * After a command commit: take the rows it wrote, track enforcement, push at once when an SFU holds one
     * of them (an admit of a participant without a transport changes nothing at any SFU: no push).
     */
    public void afterCommit(UUID meetingId, CommittedChange cmd) {
        MeetingGrants g = ledger.get(meetingId);
        if (g == null || cmd.replay()) {
            return;
        }
        boolean changed = GrantLedger.apply(g, cmd.changed());
        enforcement.track(meetingId, cmd);
        if (changed || cmd.pending()) {
            pusher.pushSoon(meetingId, g);
        }
    }

    /** After a change outside the command path (leave, reconnect timeout): re-read and push revocations now. */
    public void refresh(UUID meetingId) {
        MeetingGrants g = ledger.get(meetingId);
        if (g != null) {
            reload(meetingId);
            pusher.pushSoon(meetingId, g);
        }
    }

    /**
     * After a transport was reserved (the row as its transaction left it): the SFU should hold a grant before
     * the client's offer arrives.
     */
    public void afterTransport(UUID meetingId, ParticipantRow row) {
        MeetingGrants g = ledger.get(meetingId);
        if (g != null && GrantLedger.apply(g, List.of(row))) {
            pusher.pushSoon(meetingId, g);
        }
    }

    /** The current grant of a participant for a transport request, or null when not owned/unknown. */
    public Grant currentGrant(UUID meetingId, UUID participantId) {
        MeetingGrants g = ledger.get(meetingId);
        long ttl = gate.ttlNow();
        if (g == null || ttl <= 0) {
            return null;
        }
        return GrantLedger.grantOf(g, participantId, ttl);
    }

    /**
     * True while this controller cannot vouch for its etcd lease: no grant can be issued, but the meeting is
     * not lost either (the lease may be confirmed again in a moment), so callers answer "retry", not "refused".
     */
    public boolean leaseInDoubt() {
        return gate.ttlNow() <= 0;
    }

    /**
     * Where the meeting's admitted participants are placed (participant id → SFU pod), as the transports this
     * owner reserved left it; empty when not owned. The relay driver plans from it.
     */
    public Map<String, String> placements(UUID meetingId) {
        MeetingGrants g = ledger.get(meetingId);
        return g == null ? Map.of() : GrantLedger.placements(g);
    }

    /**
     * True when every admitted participant we placed on one of {@code pods} has acknowledged a grant of our epoch
     * there: the relay driver waits for it after a takeover, since a relay at our epoch voids older grants at an SFU.
     */
    public boolean grantsHeld(UUID meetingId, java.util.Set<String> pods) {
        MeetingGrants g = ledger.get(meetingId);
        if (g == null) return false;
        for (GrantLedger.PartState s : g.parts.values()) {
            if (s.active && s.sfu != null && pods.contains(s.sfu) && s.acked < 0) return false;
        }
        return true;
    }

    /**
     * An SFU reports a participant's connection up ({@code transport_connected}): when it is the SFU the participant
     * moved to, the SFU it left is released now (make-before-break). Returns whether a release went out.
     */
    public boolean transportConnected(UUID meetingId, UUID participantId, String pod) {
        MeetingGrants g = ledger.get(meetingId);
        GrantLedger.Release r = g == null ? null : GrantLedger.connected(g, participantId, pod);
        if (r == null) return false;
        pusher.releaseAtOldSfu(r.from(), r.to(), meetingId, participantId, g.epoch);
        enforcement.check(meetingId, g.epoch, g);
        return true;
    }

    /**
     * Participants that moved to another SFU while their old SFU still carries their connection (participant id →
     * old SFU): their media still enters there, so the relay driver keeps their tracks' origin there until released.
     */
    public Map<String, String> releasing(UUID meetingId) {
        MeetingGrants g = ledger.get(meetingId);
        return g == null ? Map.of() : GrantLedger.releasing(g);
    }

    public Long epochOf(UUID meetingId) {
        MeetingGrants g = ledger.get(meetingId);
        return g == null ? null : g.epoch;
    }

    /** Whether a command is still pending here (for tests and the API). */
    public boolean isPending(UUID meetingId, UUID commandId) {
        return enforcement.isPending(meetingId, commandId);
    }

    @PreDestroy
    void stop() {
        renewer.stop();
    }
}
