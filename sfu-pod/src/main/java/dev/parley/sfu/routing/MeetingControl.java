package dev.parley.sfu.routing;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.media.ice.IceCredentials;
import dev.parley.media.rtp.ExtensionUris;
import dev.parley.platform.grant.Grant;
import dev.parley.platform.internal.PublishSource;
import dev.parley.platform.internal.SfuEvent;
import dev.parley.platform.internal.SlotAssignment;
import dev.parley.platform.internal.TrackSubscription;
import dev.parley.sfu.feedback.TransportFeedbackRecorder;
import dev.parley.sfu.grant.GrantBook;
import dev.parley.sfu.signaling.AnswerBuilder;
import dev.parley.sfu.signaling.MediaPlan;
import dev.parley.sfu.transport.WebRtcTransport;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The SFU's control facade (mediasoup's Router/Transport methods): creates and renegotiates transports from offers,
 * fences grants by epoch, maps tracks onto subscriber slots, removes participants. Runs on the media thread (the
 * API enters through {@link Router#call}); refusals are {@link ControlException}s, which the API maps to HTTP.
 */
public final class MeetingControl {
    /** A transport's answer; for subscribe its slot map and that map's version (docs/internal-api.md "Top-N audio"). */
    public record TransportResult(String transportId, String answer, List<SlotAssignment> slots, long slotVersion) {}

    private final Router router;

    MeetingControl(Router router) { this.router = router; }

    /** Creates, renegotiates or replaces a transport from a browser offer. Caller has verified the ticket. */
    public TransportResult createTransport(String meetingId, String participantId, long generation, long epoch,
                                           boolean publish, String offer, Grant grant, String eventsUrl,
                                           List<PublishSource> sources, Integer audioTopN) {
        Meeting m = router.meetings.computeIfAbsent(meetingId, Meeting::new);
        if (!m.grants.admitEpoch(epoch)) throw new ControlException.StaleEpoch(m.grants.highestEpoch());
        if (audioTopN != null) m.audio.setN(audioTopN, router.events);
        if (grant != null) {
            if (!grant.participantId().equals(participantId)) throw new ControlException.Invalid("grant is for another participant");
            if (m.grants.apply(grant, System.nanoTime()) == GrantBook.Outcome.STALE_EPOCH) {
                throw new ControlException.StaleEpoch(m.grants.highestEpoch());
            }
        }
        Participant p = m.participants.computeIfAbsent(participantId, id -> new Participant(id, m));
        if (eventsUrl != null && !eventsUrl.isBlank()) m.eventsUrl = eventsUrl;
        WebRtcTransport existing = publish ? p.publish : p.subscribe;
        long existingGen = publish ? p.publishGeneration : p.subscribeGeneration;
        if (existing != null && generation < existingGen) throw new ControlException.StaleGeneration("older transport generation");
        boolean renegotiate = existing != null && generation == existingGen
                && existing.state() != WebRtcTransport.State.FAILED && existing.state() != WebRtcTransport.State.CLOSED;

        Map<String, AnswerBuilder.SlotSsrcs> slotSsrcs = new HashMap<>();
        if (!publish && renegotiate) {
            for (Slot s : p.slots) slotSsrcs.put(s.mid, new AnswerBuilder.SlotSsrcs(s.ssrc & 0xFFFFFFFFL, s.rtxSsrc & 0xFFFFFFFFL));
        }
        IceCredentials local = renegotiate ? existing.localCredentials() : IceCredentials.random();
        AnswerBuilder.Result r = AnswerBuilder.answer(offer, publish, local, router.certificate.fingerprint(),
                new AnswerBuilder.Candidates(router.endpoint.address(), router.endpoint.udpPort(), router.endpoint.tcpPort()), slotSsrcs);
        WebRtcTransport t;
        if (renegotiate) {
            t = existing;
            if (!r.remoteUfrag().equals(existing.remoteUfrag())) {
                // ICE restart: browser changed its credentials; keep DTLS/SRTP, give new local credentials
                IceCredentials fresh = IceCredentials.random();
                router.demux.restartIce(existing, fresh, r.remoteUfrag());
                r = AnswerBuilder.answer(offer, publish, fresh, router.certificate.fingerprint(),
                        new AnswerBuilder.Candidates(router.endpoint.address(), router.endpoint.udpPort(), router.endpoint.tcpPort()), slotSsrcs);
            }
        } else {
            if (existing != null) closeTransport(existing, null);
            // a new publish transport (new generation on this SFU) publishes afresh: the old tracks go with the old
            // transport, as when it fails (Router.onFailed); kept, they held the old offer's SSRCs and the new
            // stream was never learned (chaos quick run 12:16: the host never received the guest again)
            if (publish) for (PublishedTrack old : new ArrayList<>(p.tracksByMid.values())) {
                if (old.upstream == null) unpublish(p, old, p.publishEventsUrl, p.publishGeneration);
            }
            t = new WebRtcTransport(UUID.randomUUID().toString(), router.loop, router.io, router.certificate, Router.srtpProfiles(publish, r.media()), local,
                    r.remoteUfrag(), r.remoteFingerprint(), router.metrics, router);
            router.demux.add(t);
            router.owners.put(t, p);
            if (publish) {
                p.publish = t; p.publishGeneration = generation; p.publishEventsUrl = eventsUrl;
                p.twccIn = new TransportFeedbackRecorder(System.nanoTime() / 1000);
            }
            else {
                p.subscribe = t; p.subscribeGeneration = generation; p.subscribeEventsUrl = eventsUrl;
                p.resetCongestionControl();
                router.releaseHolds(p); // a replaced connection's; the new one's start below
            }
        }
        if (publish) {
            p.applyPublishSources(sources);
            applyPublishPlan(p, r.media(), eventsUrl, generation);
        }
        else {
            applySubscribePlan(p, r.media());
            // keyframes asked for now have the whole ICE + DTLS time to arrive, held until the connection is up
            if (!renegotiate) router.startHolds(p, System.nanoTime());
        }
        return new TransportResult(t.id(), r.answer(), publish ? List.of() : assignments(p), p.slotVersion);
    }

    private void applyPublishPlan(Participant p, List<MediaPlan> plans, String eventsUrl, long generation) {
        for (MediaPlan mp : plans) {
            if (mp.ext(ExtensionUris.MID) > 0) p.midExtId = mp.ext(ExtensionUris.MID);
            if (mp.ext(ExtensionUris.RID) > 0) p.ridExtId = mp.ext(ExtensionUris.RID);
            if (mp.ext(ExtensionUris.REPAIRED_RID) > 0) p.repairedRidExtId = mp.ext(ExtensionUris.REPAIRED_RID);
            if (mp.accepted() && mp.ext(ExtensionUris.TRANSPORT_CC) > 0) p.publishTwccExtId = mp.ext(ExtensionUris.TRANSPORT_CC);
            PublishedTrack old = p.tracksByMid.get(mp.mid());
            if (!mp.accepted()) {
                if (old != null) unpublish(p, old, eventsUrl, generation);
                continue;
            }
            if (old != null && old.upstream == null) continue;
            // a relayed copy of this track is here already (its publisher moved here and its own connection now
            // publishes it, e.g. off a draining origin SFU): the local publication replaces the copy, silently (the
            // track stays published here; its relay, once deleted, finds nothing of its own to unpublish)
            if (old != null) unpublish(p, old, null, generation);
            PublishedTrack t = new PublishedTrack(p, mp.mid(), mp.isVideo(), mp.codec(), mp.payloadType(), mp.rtxPayloadType(),
                    mp.clockRate(), mp.rids(), mp.ext(ExtensionUris.AUDIO_LEVEL));
            t.screen = p.isScreen(mp.mid(), mp.isVideo());
            for (Long s : mp.offeredSsrcs()) p.tracksByDeclaredSsrc.put(s, t);
            for (Long s : mp.offeredRtxSsrcs()) p.tracksByDeclaredSsrc.put(s, t);
            addTrack(p, t, eventsUrl, generation);
        }
    }

    /** A new track of {@code p} (published here or arriving by relay): speakers, top-N audio, slots, the event. */
    private void addTrack(Participant p, PublishedTrack t, String eventsUrl, long generation) {
        p.tracksByMid.put(t.mid, t);
        if (t.upstream == null) p.meeting.dynacast.addTrack(t);        // a relayed track's publisher is told by its origin
        if (!t.video && t.audioLevelExtId > 0 && p.speakerSlot < 0) p.speakerSlot = p.meeting.speakers.register(p.id);
        if (!t.video && p.audioSlot < 0) p.audioSlot = p.meeting.audio.register(p);
        ObjectNode data = JsonNodeFactory.instance.objectNode().put("track_id", t.trackId).put("kind", t.kind())
                .put("source", t.source()).put("simulcast_layers", t.layers.length);
        if (t.upstream != null) data.put("relayed", true);
        router.events.publish(eventsUrl, SfuEvent.TRACK_PUBLISHED, p.meeting.id, p.id, generation, data);
        for (Participant other : p.meeting.participants.values()) if (other != p) assignToFreeSlot(other, t);
    }

    // ------------------------------------------------------------------ relays between SFUs (relay package)

    /** True if this worker carries the meeting (a transport or a grant push put it here). */
    public boolean carries(String meetingId) { return router.meetings.containsKey(meetingId); }

    /** The meeting's highest controller epoch seen here (Long.MIN_VALUE: unknown meeting). */
    public long highestEpoch(String meetingId) {
        Meeting m = router.meetings.get(meetingId);
        return m == null ? Long.MIN_VALUE : m.grants.highestEpoch();
    }

    /** Fences a relay request on the meeting's epoch exactly as a grant: lower → StaleEpoch, higher → older state void. */
    public void admitRelayEpoch(String meetingId, long epoch) {
        Meeting m = router.meetings.get(meetingId);
        if (m == null) throw new ControlException.NotFound("meeting not carried by this SFU");
        if (!m.grants.admitEpoch(epoch)) throw new ControlException.StaleEpoch(m.grants.highestEpoch());
    }

    /**
     * The tracks published on this worker by participants connected here (relayed copies left out), for a new owner
     * that re-learns what its relays carry: {track_id, participant_id, kind, source, simulcast_layers} each.
     */
    public List<Map<String, Object>> publishedTracks(String meetingId) {
        Meeting m = router.meetings.get(meetingId);
        List<Map<String, Object>> out = new ArrayList<>();
        if (m == null) return out;
        for (Participant p : m.participants.values()) {
            for (PublishedTrack t : p.tracksByMid.values()) {
                if (t.upstream != null) continue;
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("track_id", t.trackId);
                e.put("participant_id", p.id);
                e.put("kind", t.kind());
                e.put("source", t.source());
                e.put("simulcast_layers", t.layers.length);
                out.add(e);
            }
        }
        return out;
    }

    /** A track published on this worker (local or relayed), or null. */
    public TrackHandle track(String meetingId, String trackId) {
        Meeting m = router.meetings.get(meetingId);
        if (m == null) return null;
        int c = trackId.lastIndexOf(':');
        if (c <= 0) return null;
        Participant p = m.participants.get(trackId.substring(0, c));
        PublishedTrack t = p == null ? null : p.tracksByMid.get(trackId.substring(c + 1));
        return t == null ? null : new TrackHandle(router, t);
    }

    /**
     * A track that arrives by relay: published here as its publisher's (a participant with no transport of its own),
     * fed by {@link TrackHandle#inject}, forwarded while {@code upstream} says so. Local subscribers get it like any
     * track (free slots, top-N audio, {@code track_published} with {@code relayed: true}).
     */
    public TrackHandle publishRelayed(String meetingId, String trackId, boolean video, String codec, int payloadType,
                                      int clockRate, int layers, int audioLevelExtId, Upstream upstream) {
        Meeting m = router.meetings.get(meetingId);
        if (m == null) throw new ControlException.NotFound("meeting not carried by this SFU");
        int c = trackId.lastIndexOf(':');
        if (c <= 0 || c == trackId.length() - 1) throw new ControlException.Invalid("track_id: must be {participant_id}:{mid}");
        String pid = trackId.substring(0, c), mid = trackId.substring(c + 1);
        Participant p = m.participants.computeIfAbsent(pid, id -> new Participant(id, m));
        if (p.publish != null) throw new ControlException.Invalid("track_id: its publisher publishes on this SFU");
        PublishedTrack old = p.tracksByMid.get(mid);
        if (old != null) {
            if (old.upstream == null) throw new ControlException.Invalid("track_id: published on this SFU");
            unpublish(p, old, m.eventsUrl, 0);
        }
        List<String> rids = new ArrayList<>();
        if (layers > 1) for (int i = 0; i < layers; i++) rids.add("r" + i);
        PublishedTrack t = new PublishedTrack(p, mid, video, codec, payloadType, 0, clockRate, rids, audioLevelExtId);
        t.upstream = upstream;
        addTrack(p, t, m.eventsUrl, 0);
        return new TrackHandle(router, t);
    }

    /** The relay ended: the relayed track goes (and its stand-in publisher, once it has nothing left). */
    public void unpublishRelayed(TrackHandle h) {
        PublishedTrack t = h.track;
        Participant p = t.owner;
        if (t.upstream == null || p.tracksByMid.get(t.mid) != t) return;
        unpublish(p, t, p.meeting.eventsUrl, 0);
        if (p.tracksByMid.isEmpty() && p.publish == null && p.subscribe == null) {
            p.meeting.participants.remove(p.id);
            p.meeting.speakers.unregister(p.id);
            p.meeting.audio.unregister(p, router.events);
            if (p.meeting.participants.isEmpty()) router.meetings.remove(p.meeting.id);
        }
    }

    void unpublish(Participant p, PublishedTrack t, String eventsUrl, long generation) {
        for (Slot s : new ArrayList<>(t.slots)) s.detach();
        t.slots.clear();
        p.tracksByMid.remove(t.mid);
        for (Layer l : t.layers) {
            router.rtcp.forgetStream(l.ssrc);
            if (l.ssrc != 0) p.layersBySsrc.remove(l.ssrc);
            if (l.rtxSsrc != 0) p.rtxLayersBySsrc.remove(l.rtxSsrc);
        }
        p.tracksByDeclaredSsrc.values().removeIf(x -> x == t);
        p.meeting.dynacast.removeTrack(t);
        if (!t.video && AudioTopN.audioTrack(p) == null) p.meeting.audio.unregister(p, router.events);
        router.events.publish(eventsUrl, SfuEvent.TRACK_UNPUBLISHED, p.meeting.id, p.id, generation,
                JsonNodeFactory.instance.objectNode().put("track_id", t.trackId));
    }

    private void applySubscribePlan(Participant p, List<MediaPlan> plans) {
        Map<String, Slot> existing = new LinkedHashMap<>();
        for (Slot s : p.slots) existing.put(s.mid, s);
        List<Slot> next = new ArrayList<>();
        int twcc = 0;
        for (MediaPlan mp : plans) {
            if (!mp.accepted() || !mp.sfuSends()) continue;
            if (twcc == 0) twcc = mp.ext(ExtensionUris.TRANSPORT_CC);      // BUNDLE: one id for the transport
            Slot s = existing.get(mp.mid());
            // a slot carries on only if the answer kept its SSRC (a renegotiation of the same transport); a new
            // transport's answer names fresh SSRCs, and an old slot would forward on one the browser never heard of
            if (s != null && (s.ssrc & 0xFFFFFFFFL) == mp.slotSsrc() && s.video == mp.isVideo()) existing.remove(mp.mid());
            else s = null;
            if (s == null) s = new Slot(p, mp.mid(), mp.isVideo(), (int) mp.slotSsrc(), mp.payloadType(),
                    mp.ext(ExtensionUris.MID), mp.ext(ExtensionUris.AUDIO_LEVEL));
            s.rtxSsrc = (int) mp.slotRtxSsrc();
            s.codecs(mp.rtxPayloadType(), mp.vp9PayloadType(), mp.vp9RtxPayloadType());
            next.add(s);
        }
        for (Slot gone : existing.values()) if (gone.track != null) { gone.track.slots.remove(gone); gone.detach(); }
        p.slots.clear();
        p.slots.addAll(next);
        p.twccExtId = router.congestionControl ? twcc : 0;
        for (Participant other : p.meeting.participants.values()) {
            if (other == p) continue;
            for (PublishedTrack t : other.tracksByMid.values()) assignToFreeSlot(p, t);
        }
        p.meeting.audio.replan(p, System.nanoTime(), router.events, false);            // the answer carries the slot map
    }

    /** Video goes to a free slot; audio slots follow the meeting's top-N plan ({@link AudioTopN}). */
    private void assignToFreeSlot(Participant sub, PublishedTrack t) {
        if (!t.video || sub.unwatched.contains(t.trackId)) return;
        for (Slot s : sub.slots) if (s.track == t) return;
        for (Slot s : sub.slots) {
            if (s.track == null && s.carries(t)) {
                s.attach(t);
                int[] w = sub.wanted.get(t.trackId);
                if (w != null) { s.maxWidth = w[0]; s.maxHeight = w[1]; }
                t.slots.add(s);
                return;
            }
        }
    }

    static List<SlotAssignment> assignments(Participant p) {
        List<SlotAssignment> r = new ArrayList<>();
        for (Slot s : p.slots) {
            if (s.track != null) r.add(new SlotAssignment(s.mid, s.track.owner.id, s.track.trackId, s.track.kind(), s.track.source()));
        }
        return r;
    }

    /**
     * Batch of grants for one meeting; returns the versions now held per participant. All or nothing: a grant of
     * another epoch refuses the batch before the meeting, its epoch or any grant changes.
     */
    public Map<String, Long> putGrants(String meetingId, long epoch, List<Grant> grants) {
        for (int i = 0; i < grants.size(); i++) {
            if (grants.get(i).controllerEpoch() != epoch) {
                throw new ControlException.Invalid("grants[" + i + "].controller_epoch: differs from the request's controller_epoch");
            }
        }
        Meeting m = router.meetings.computeIfAbsent(meetingId, Meeting::new);
        if (!m.grants.admitEpoch(epoch)) throw new ControlException.StaleEpoch(m.grants.highestEpoch());
        long now = System.nanoTime();
        Map<String, Long> acks = new LinkedHashMap<>();
        for (Grant g : grants) {
            m.grants.apply(g, now);
            acks.put(g.participantId(), m.grants.version(g.participantId()));
        }
        return acks;
    }

    public void removeParticipant(String meetingId, String participantId, long epoch) {
        Meeting m = router.meetings.get(meetingId);
        if (m == null) return;
        if (!m.grants.admitEpoch(epoch)) throw new ControlException.StaleEpoch(m.grants.highestEpoch());
        Participant p = m.participants.get(participantId);
        if (p == null) return;
        forget(m, p);
        if (m.participants.isEmpty()) router.meetings.remove(meetingId);
    }

    /** Everything of {@code p} goes: transports, tracks, slots, grant, speaker and top-N places. Idempotent. */
    private void forget(Meeting m, Participant p) {
        if (p.publish != null) closeTransport(p.publish, null);
        if (p.subscribe != null) closeTransport(p.subscribe, null);
        for (PublishedTrack t : new ArrayList<>(p.tracksByMid.values())) unpublish(p, t, p.publishEventsUrl, p.publishGeneration);
        for (Slot s : p.slots) if (s.track != null) s.track.slots.remove(s);
        if (p.testLink != null) p.testLink.close();
        m.participants.remove(p.id);
        m.grants.remove(p.id);
        m.speakers.unregister(p.id);
        m.audio.unregister(p, router.events);
        m.dynacast.removeSubscriber(p.id);
    }

    /**
     * How long a participant may stay with no transport and no live grant before the SFU forgets it by itself. The
     * controller renews a present participant's grant every second (ttl ≤ 3 s), so a participant whose grant ran out
     * is gone, or its owner cannot confirm its lease; the grace covers the latter (etcd down, a new owner taking
     * over) and a reconnect that comes back with a new transport and a fresh grant.
     */
    static final long ORPHAN_GRACE_NANOS = 20_000_000_000L;

    /**
     * Forgets what nobody will remove any more (runs every second on the media thread): participants with no
     * transport here, no relayed track and no live grant for {@link #ORPHAN_GRACE_NANOS} (their removal or the
     * meeting's end did not reach this SFU: the SFU or the controller was down, the request was lost), then meetings
     * with no participant here and no grant still live. A grant batch creates the meeting it names (grants may
     * arrive before the first transport), and a batch that lands after the last participant left (a renewal or
     * revocation in flight) would otherwise stay for the life of the process, ticked every 100 ms. Forgetting it is
     * what the last departure does anyway (its epoch goes with it, as it does then). Returns the meetings forgotten.
     */
    int forgetIdleMeetings(long now) {
        for (Meeting m : router.meetings.values()) {
            List<Participant> orphans = null;
            for (Participant p : m.participants.values()) {
                if (!orphaned(m, p, now)) { p.orphanSince = 0; continue; }
                if (p.orphanSince == 0) p.orphanSince = now;
                else if (now - p.orphanSince >= ORPHAN_GRACE_NANOS) (orphans == null ? orphans = new ArrayList<>() : orphans).add(p);
            }
            if (orphans != null) for (Participant p : orphans) forget(m, p);
        }
        int before = router.meetings.size();
        router.meetings.values().removeIf(m -> m.participants.isEmpty() && !m.grants.anyLive(now));
        return before - router.meetings.size();
    }

    /** No transport, no relayed track (a relay's stand-in publisher goes with its relay) and no live grant. */
    private static boolean orphaned(Meeting m, Participant p, long now) {
        if (p.publish != null || p.subscribe != null || m.grants.get(p.id).live(now)) return false;
        for (PublishedTrack t : p.tracksByMid.values()) if (t.upstream != null) return false;
        return true;
    }

    /**
     * Whether the participant's client reads {@code slot_delta} notices (its subscribe transport request's
     * {@code slot_deltas}); each subscribe request says it again. Unknown participants are ignored.
     */
    public void readsSlotDeltas(String meetingId, String participantId, boolean deltas) {
        Meeting m = router.meetings.get(meetingId);
        Participant p = m == null ? null : m.participants.get(participantId);
        if (p != null) p.slotDeltas = deltas;
    }

    /** The version of the participant's slot map as {@link #updateSubscriptions} just returned it (0: unknown). */
    public long slotVersion(String meetingId, String participantId) {
        Meeting m = router.meetings.get(meetingId);
        Participant p = m == null ? null : m.participants.get(participantId);
        return p == null ? 0 : p.slotVersion;
    }

    public List<SlotAssignment> updateSubscriptions(String meetingId, String participantId, long epoch, List<TrackSubscription> tracks) {
        Meeting m = router.meetings.get(meetingId);
        if (m == null) throw new ControlException.NotFound("unknown meeting");
        if (!m.grants.admitEpoch(epoch)) throw new ControlException.StaleEpoch(m.grants.highestEpoch());
        Participant p = m.participants.get(participantId);
        if (p == null) throw new ControlException.NotFound("unknown participant");
        p.applySubscriptions(tracks);
        watchOnly(p, tracks);
        m.audio.replan(p, System.nanoTime(), router.events, false);                    // a pin may have moved an audio slot
        return assignments(p);
    }

    /**
     * Paged video: a video the subscriber no longer watches (0 × 0) gives up its slot, and a watched video
     * without a slot takes a free one (it starts at its next keyframe; the answer carries the new slot map).
     */
    private void watchOnly(Participant p, List<TrackSubscription> tracks) {
        for (Slot s : p.slots) {
            if (s.video && s.track != null && p.unwatched.contains(s.track.trackId)) { s.track.slots.remove(s); s.detach(); }
        }
        for (TrackSubscription ts : tracks) {
            if (p.unwatched.contains(ts.trackId())) continue;
            int colon = ts.trackId().lastIndexOf(':');
            Participant owner = colon > 0 ? p.meeting.participants.get(ts.trackId().substring(0, colon)) : null;
            PublishedTrack t = owner == null || owner == p ? null : owner.tracksByMid.get(ts.trackId().substring(colon + 1));
            if (t != null) assignToFreeSlot(p, t);
        }
    }

    /**
     * TEST ONLY (the test-hooks endpoint): shapes everything the SFU sends as RTP to this participant's subscribe
     * transport through an emulated path. The first call creates it (its one-way delay is fixed then); later calls
     * change capacity ({@code <= 0} = unlimited) and loss, and packets already queued keep their order, so lifting a
     * limit never reorders. Returns false for an unknown participant.
     */
    public boolean setTestLink(String meetingId, String participantId, long capacityBps, int delayMs, double lossPercent) {
        Meeting m = router.meetings.get(meetingId);
        Participant p = m == null ? null : m.participants.get(participantId);
        if (p == null) return false;
        if (p.testLink == null) {
            p.testLink = new EmulatedLink(p, router.loop, router.io::flush, capacityBps, delayMs * 1000L, lossPercent / 100, 500_000);
        } else {
            p.testLink.emulator.setCapacityBps(capacityBps);
            p.testLink.emulator.setLossRate(lossPercent / 100);
        }
        return true;
    }

    void closeTransport(WebRtcTransport t, String eventType) {
        Participant p = router.owners.remove(t);
        router.demux.remove(t);
        t.close();
        if (p != null) {
            boolean pub = p.publish == t;
            if (eventType != null) {
                router.events.publish(pub ? p.publishEventsUrl : p.subscribeEventsUrl, eventType, p.meeting.id, p.id,
                        pub ? p.publishGeneration : p.subscribeGeneration, null);
            }
            if (pub) p.publish = null;
            else if (p.subscribe == t) p.subscribe = null;
        }
    }
}
