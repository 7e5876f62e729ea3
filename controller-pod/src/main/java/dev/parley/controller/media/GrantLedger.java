package dev.parley.controller.media;

import dev.parley.controller.enforcement.EnforcementView;
import dev.parley.controller.participant.ParticipantRow;
import dev.parley.platform.grant.Grant;
import dev.parley.platform.grant.PublishRights;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The grant ledger of the meetings we own, pure state and no I/O: per participant, the grant we want its SFU to
 * hold (desired) and what that SFU acknowledged, plus the expiry bound of every grant we handed out.
 */
final class GrantLedger {
    /** Per participant: what we want the SFU to hold and what we know it holds. */
    static final class PartState {
        volatile long version;
        volatile PublishRights rights = PublishRights.NONE;
        volatile boolean active;
        volatile String sfu;
        volatile long acked = -1;
        volatile boolean removedAtSfu;
        /**
         * The SFU this participant moved away from, which still carries its old connection: released (DELETE) once
         * the new SFU reports the new connection up ({@link #connected}), or {@link #RELEASE_FALLBACK_NANOS} after the
         * new SFU first acknowledged a grant (a client that never connects there). Make-before-break: releasing on the
         * new SFU's first ack cut the old connection before the new one existed (OriginDrainIT).
         */
        volatile String releaseFrom;
        /** System.nanoTime() after which {@link #releaseFrom} is released anyway; 0 until the new SFU acknowledged. */
        volatile long releaseAfter;
        /** version → latest expiry (nanoTime) of any grant we sent with that version. */
        final NavigableMap<Long, Long> sentExpiry = new ConcurrentSkipListMap<>();

        /** When every grant older than version v has certainly expired at the SFU. */
        long olderGrantsExpireAt(long v) {
            long max = Long.MIN_VALUE;
            for (Long e : sentExpiry.headMap(v, false).values()) {
                max = Math.max(max, e);
            }
            return max;
        }
    }

    /** One owned meeting's participants, at the epoch we own it with. */
    static final class MeetingGrants implements EnforcementView {
        final long epoch;
        final Map<UUID, PartState> parts = new ConcurrentHashMap<>();

        MeetingGrants(long epoch) {
            this.epoch = epoch;
        }

        @Override
        public boolean enforced(UUID participantId, long version, long nowNanos) {
            PartState s = parts.get(participantId);
            if (s == null) {
                return true;
            }
            // while the old SFU still carries the participant (its release pending) an ack of the new one is not enough
            boolean acked = s.acked >= version && s.releaseFrom == null;
            long olderExpiry = s.olderGrantsExpireAt(version);
            boolean oldExpired = olderExpiry == Long.MIN_VALUE || nowNanos - olderExpiry > 0;
            return acked || oldExpired;
        }

        /** The SFUs that hold (or should hold) a grant of this meeting. */
        Set<String> pods() {
            Set<String> pods = new HashSet<>();
            for (PartState s : parts.values()) {
                String pod = s.sfu;
                if (pod != null) {
                    pods.add(pod);
                }
            }
            return pods;
        }
    }

    /** What an acknowledgement asks of the SFUs: remove a revoked participant, release it at the SFU it left. */
    record AckFollowUp(UUID participantId, boolean removeAtSfu, String releaseFrom, String currentSfu) {
    }

    private final Map<UUID, MeetingGrants> meetings = new ConcurrentHashMap<>();

    MeetingGrants open(UUID meetingId, long epoch) {
        MeetingGrants g = new MeetingGrants(epoch);
        meetings.put(meetingId, g);
        return g;
    }

    MeetingGrants get(UUID meetingId) {
        return meetings.get(meetingId);
    }

    void remove(UUID meetingId) {
        meetings.remove(meetingId);
    }

    Map<UUID, MeetingGrants> meetings() {
        return meetings;
    }

    /** Takes a participant's committed state unless we already hold a newer version of it. */
    static void apply(MeetingGrants g, UUID pid, long v, boolean admitted, PublishRights rights, String sfu) {
        PartState s = g.parts.computeIfAbsent(pid, k -> new PartState());
        synchronized (s) {
            if (v < s.version) {
                return;
            }
            s.version = v;
            s.active = admitted;
            s.rights = admitted ? rights : PublishRights.NONE;
            if (!sfu.equals(s.sfu)) {
                if (s.sfu != null) {
                    s.releaseFrom = s.sfu; // the SFU it leaves now (a release still pending elsewhere is dropped)
                    s.releaseAfter = 0;
                }
                s.sfu = sfu;
                s.acked = -1;
            }
        }
    }

    /**
     * Takes the rows a committed transaction wrote (no re-read: the transaction returned them); rows without
     * a transport are not tracked (the SFU knows nothing of them). Returns whether any tracked row changed.
     */
    /** Admitted participants with a transport → their SFU pod. */
    static Map<String, String> placements(MeetingGrants g) {
        Map<String, String> out = new HashMap<>();
        for (Map.Entry<UUID, PartState> e : g.parts.entrySet()) {
            PartState s = e.getValue();
            if (s.active && s.sfu != null) out.put(e.getKey().toString(), s.sfu);
        }
        return out;
    }

    static boolean apply(MeetingGrants g, List<ParticipantRow> rows) {
        boolean any = false;
        for (ParticipantRow p : rows) {
            if (p.sfuPod() != null) {
                apply(g, p.participantId(), p.version(), p.isAdmitted(), p.rights(), p.sfuPod());
                any = true;
            }
        }
        return any;
    }

    /** Unknown grants from a previous epoch: assume the longest they could live (until {@code expiry}). */
    static void assumeOldGrants(MeetingGrants g, long expiry) {
        for (PartState p : g.parts.values()) {
            p.sentExpiry.put(0L, expiry);
        }
    }

    /** Every tracked participant's current version: what an inherited pending command waits for. */
    static Map<UUID, Long> currentVersions(MeetingGrants g) {
        Map<UUID, Long> targets = new HashMap<>();
        for (Map.Entry<UUID, PartState> e : g.parts.entrySet()) {
            targets.put(e.getKey(), e.getValue().version);
        }
        return targets;
    }

    /** A participant's grant as of now, handed out with {@code ttl} (expiry bound recorded), or null if unknown. */
    static Grant grantOf(MeetingGrants g, UUID participantId, long ttl) {
        PartState s = g.parts.get(participantId);
        if (s == null) {
            return null;
        }
        synchronized (s) {
            s.sentExpiry.merge(s.version, LeaseGate.expiryFor(ttl), Math::max);
            return s.active ? new Grant(participantId.toString(), s.version, g.epoch, s.rights, true, ttl)
                    : Grant.revoked(participantId.toString(), s.version, g.epoch, ttl);
        }
    }

    /**
     * The meeting's grants per SFU (only {@code onlySfu}'s when not null), recording {@code expiry} as the bound
     * of every grant returned (whoever sends them must do so at once).
     */
    static Map<String, List<Grant>> collect(MeetingGrants g, long ttl, long expiry, String onlySfu) {
        Map<String, List<Grant>> bySfu = new HashMap<>();
        for (Map.Entry<UUID, PartState> e : g.parts.entrySet()) {
            PartState s = e.getValue();
            synchronized (s) {
                if (s.sfu == null || (!s.active && s.removedAtSfu) || (onlySfu != null && !onlySfu.equals(s.sfu))) {
                    continue;
                }
                Grant grant = s.active ? new Grant(e.getKey().toString(), s.version, g.epoch, s.rights, true, ttl)
                        : Grant.revoked(e.getKey().toString(), s.version, g.epoch, ttl);
                s.sentExpiry.merge(s.version, expiry, Math::max);
                bySfu.computeIfAbsent(s.sfu, k -> new ArrayList<>()).add(grant);
            }
        }
        return bySfu;
    }

    /**
     * Records that {@code pod} acknowledged this version of a participant; what that asks of the SFUs, or null
     * when nothing (also for an unknown participant, or an ack from an SFU it no longer is on).
     */
    static AckFollowUp acknowledged(MeetingGrants g, String pod, UUID pid, long version) {
        PartState s = g.parts.get(pid);
        if (s == null || !pod.equals(s.sfu)) {
            return null;
        }
        synchronized (s) {
            s.acked = Math.max(s.acked, version);
            // the old SFU of a move still holds an older grant until released: keep its expiry bound for enforcement
            if (s.releaseFrom == null) s.sentExpiry.headMap(s.acked, false).clear();
            boolean remove = false;
            if (!s.active && s.acked >= s.version && !s.removedAtSfu) {
                s.removedAtSfu = true;
                remove = true;
            }
            if (s.releaseFrom != null && s.releaseAfter == 0) s.releaseAfter = System.nanoTime() + RELEASE_FALLBACK_NANOS;
            if (!remove) {
                return null; // the usual ack (a renewal): nothing to ask of any SFU
            }
            String old = s.releaseFrom; // removed: nothing to keep at the old SFU either
            s.releaseFrom = null;
            return new AckFollowUp(pid, true, old, s.sfu);
        }
    }

    /**
     * The longest an old SFU keeps a moved participant's connection after the new SFU acknowledged its grant: about
     * the grant ttl, which the old SFU's grant (no longer renewed there) does not outlive anyway.
     */
    static final long RELEASE_FALLBACK_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(3);

    /** A participant to release at the SFU it left. */
    record Release(UUID participantId, String from, String to) {
    }

    /**
     * {@code pod} reports a connection of the participant up: if it is the SFU the participant moved to, the SFU it
     * left is to be released now (returned), else null.
     */
    static Release connected(MeetingGrants g, UUID pid, String pod) {
        PartState s = g.parts.get(pid);
        if (s == null || pod == null) return null;
        synchronized (s) {
            if (!pod.equals(s.sfu) || s.releaseFrom == null) return null;
            Release r = new Release(pid, s.releaseFrom, s.sfu);
            s.releaseFrom = null;
            return r;
        }
    }

    /** The releases whose fallback time passed (taken: each is returned once). */
    static List<Release> dueReleases(MeetingGrants g, long now) {
        List<Release> out = new ArrayList<>();
        for (Map.Entry<UUID, PartState> e : g.parts.entrySet()) {
            PartState s = e.getValue();
            synchronized (s) {
                if (s.releaseFrom != null && s.releaseAfter != 0 && now - s.releaseAfter > 0) {
                    out.add(new Release(e.getKey(), s.releaseFrom, s.sfu));
                    s.releaseFrom = null;
                }
            }
        }
        return out;
    }

    /** Admitted participants whose old SFU still carries their media (release pending) → that SFU. */
    static Map<String, String> releasing(MeetingGrants g) {
        Map<String, String> out = new HashMap<>();
        for (Map.Entry<UUID, PartState> e : g.parts.entrySet()) {
            PartState s = e.getValue();
            String old = s.releaseFrom;
            if (s.active && old != null) out.put(e.getKey().toString(), old);
        }
        return out;
    }
}
