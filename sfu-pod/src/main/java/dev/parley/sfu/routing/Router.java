package dev.parley.sfu.routing;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.media.codec.H264Keyframes;
import dev.parley.media.codec.Vp8Descriptor;
import dev.parley.media.codec.Vp9Descriptor;
import dev.parley.media.dtls.DtlsCertificate;
import dev.parley.media.rtp.HeaderExtensions;
import dev.parley.media.rtp.RtpPacket;
import dev.parley.media.srtp.SrtpProfile;
import dev.parley.platform.internal.SfuEvent;
import dev.parley.sfu.events.EventPublisher;
import dev.parley.sfu.grant.GrantState;
import dev.parley.sfu.metrics.SfuMetrics;
import dev.parley.sfu.net.MediaIo;
import dev.parley.sfu.signaling.MediaPlan;
import dev.parley.sfu.transport.IceLiteDemux;
import dev.parley.sfu.transport.TransportListener;
import dev.parley.sfu.transport.WebRtcTransport;
import io.netty.channel.EventLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The SFU's media plane (mediasoup's Router): holds the meetings, receives decrypted RTP/RTCP from the transports
 * ({@link dev.parley.sfu.transport.IceLiteDemux} → WebRtcTransport → here), parses each publisher packet once and
 * fans it out to the track's slots ({@link Slot#forward}); runs the timers (consent, estimators, allocation, probes,
 * reports). Publisher RTP in is {@link Ingest}, RTCP is {@link RtcpTerminator}, the control API is
 * {@link MeetingControl}, {@code /state} is {@link StateView}. Everything runs on the Router's one event loop; the
 * internal API enters through {@link #call}. A process runs one Router per media worker ({@code worker.WorkerPool}),
 * sharing nothing with the others.
 */
public final class Router implements TransportListener {
    private static final Logger LOG = LoggerFactory.getLogger(Router.class);
    /** Preference order: AES-GCM (one AES-NI/CLMUL pass) costs well under half of AES-CM + HMAC-SHA1 per packet. */
    static final List<SrtpProfile> PROFILES = List.of(SrtpProfile.AEAD_AES_128_GCM, SrtpProfile.AES128_CM_HMAC_SHA1_80);
    /** For subscribers without RTX: a NACK is answered with the cached packet itself, which GCM may not seal twice. */
    static final List<SrtpProfile> CM_FIRST = List.of(SrtpProfile.AES128_CM_HMAC_SHA1_80, SrtpProfile.AEAD_AES_128_GCM);

    public record Endpoint(String address, int udpPort, int tcpPort) {}

    final IceLiteDemux demux;
    final MediaIo io;
    final EventLoop loop;
    final SfuMetrics metrics;
    final DtlsCertificate certificate = DtlsCertificate.generate();
    final EventPublisher events;
    Endpoint endpoint;
    final Map<String, Meeting> meetings = new ConcurrentHashMap<>();
    final Map<WebRtcTransport, Participant> owners = new HashMap<>();
    /** The packet being built for one slot (every slot writes here in turn). */
    final byte[] out = new byte[2048];
    /** Padding and probe packets being built. */
    final byte[] ctl = new byte[1600];
    volatile int lossPermille;
    /** Per-subscriber estimate drives layer choice and pauses (docs/bwe.md); off: layer by tile size only, no transport seq. */
    volatile boolean congestionControl = true;
    private long lastSecondTick;
    /** Padding packets sent for probe clusters (media thread; shown in /state). */
    private long probePacketsSent;

    private final MeetingControl control = new MeetingControl(this);
    final RtcpTerminator rtcp;
    private final Ingest ingest;

    public Router(SfuMetrics metrics, EventPublisher events) { this(metrics, events, "media"); }

    /** One Router per media worker: its own sockets, event loop ({@code threadName}), metrics and meetings. */
    public Router(SfuMetrics metrics, EventPublisher events, String threadName) {
        this.metrics = metrics;
        this.events = events;
        this.demux = new IceLiteDemux(metrics);
        this.io = new MediaIo(demux, threadName);
        this.loop = io.loop();
        this.rtcp = new RtcpTerminator(this);
        this.ingest = new Ingest(this);
    }

    public void start(String bindAddress, String announced, int udpPort, int tcpPort) throws InterruptedException {
        io.bind(bindAddress, udpPort, tcpPort);
        endpoint = new Endpoint(announced, io.udpPort(), io.tcpPort());
        loop.scheduleAtFixedRate(this::tick, 100, 100, TimeUnit.MILLISECONDS);
        loop.scheduleAtFixedRate(rtcp::sendTransportFeedback, 50, 50, TimeUnit.MILLISECONDS);
        metrics.gauge("transports", () -> owners.size());
        metrics.gauge("meetings", () -> meetings.size());
        metrics.gauge("subscriptions", () -> countSubscriptions());
    }

    public Endpoint endpoint() { return endpoint; }
    public SfuMetrics metrics() { return metrics; }
    public String certificateFingerprint() { return certificate.fingerprint(); }
    public void setLossPermille(int permille) { lossPermille = Math.max(0, Math.min(1000, permille)); }
    /** Test-only: share of publishers' video packets dropped on arrival (before the SFU sees them), in ‰. */
    public void setIngressLossPermille(int permille) { ingest.setIngressLossPermille(permille); }
    public int transports() { return owners.size(); }
    /**
     * Turns per-subscriber congestion control on (default) or off for subscribe transports created afterwards:
     * off = no transport-wide sequence numbers toward subscribers, no estimator, layer by tile size (benchmarks
     * compare the two).
     */
    public void setCongestionControl(boolean on) { congestionControl = on; }
    public Map<String, Meeting> meetings() { return meetings; }
    /** The control API (media thread, through {@link #call}): transports, grants, subscriptions, test links. */
    public MeetingControl control() { return control; }

    private long countSubscriptions() {
        long n = 0;
        for (Meeting m : meetings.values()) for (Participant p : m.participants.values()) for (Slot s : p.slots) if (s.track != null) n++;
        return n;
    }

    /** Runs {@code task} on the media thread and waits for it. */
    public <T> T call(Callable<T> task) {
        try {
            return loop.submit(task).get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) throw re;
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("media thread busy", e);
        }
    }

    public void close() { io.close(); }

    /** A UDP destination on this worker's media socket (relays send from the port their peer sees). */
    public dev.parley.sfu.net.PacketPath udpPath(java.net.InetSocketAddress remote) { return io.udpPath(remote); }

    /** Sends what the current task queued on the media socket (call at the end of work done outside a read burst). */
    public void flush() { io.flush(); }

    /** SRTP/SRTCP on the media port from a 5-tuple no ICE check bound: offered to the relays (else dropped). */
    public void setUnboundPacketHandler(dev.parley.sfu.transport.UnboundPackets h) { demux.setUnbound(h); }

    /** Runs {@code task} on the media thread every {@code periodMs}. */
    public void every(long periodMs, Runnable task) { loop.scheduleAtFixedRate(task, periodMs, periodMs, TimeUnit.MILLISECONDS); }

    /** GCM first unless this is a subscribe connection with video that retransmits without RTX (see CM_FIRST). */
    static List<SrtpProfile> srtpProfiles(boolean publish, List<MediaPlan> plans) {
        if (!publish) for (MediaPlan m : plans) if (m.accepted() && m.isVideo() && m.rtxPayloadType() == 0) return CM_FIRST;
        return PROFILES;
    }

    /** Snapshot for GET /state (media thread). */
    public Map<String, Object> state() { return StateView.render(meetings.values(), owners.size(), probePacketsSent); }

    // ================================================================== packet path (media thread)

    @Override
    public void onConnected(WebRtcTransport t) {
        Participant p = owners.get(t);
        if (p == null) return;
        boolean pub = p.publish == t;
        ObjectNode data = JsonNodeFactory.instance.objectNode().put("tcp", t.isTcp()).put("kind", pub ? "publish" : "subscribe");
        events.publish(pub ? p.publishEventsUrl : p.subscribeEventsUrl, SfuEvent.TRANSPORT_CONNECTED, p.meeting.id, p.id,
                pub ? p.publishGeneration : p.subscribeGeneration, data);
        long now = System.nanoTime();
        if (pub) return;
        for (Slot s : p.slots) {
            if (s.track == null || !s.track.video) continue;
            Layer held = heldLayer(s);
            if (held != null) replayHold(s, held, now);
            // nothing held reached this slot (no keyframe yet, or the hold gave up): ask for one now
            if (s.current == null || s.waitingKeyframe) for (Layer l : s.track.layers) rtcp.requestKeyframe(l, now, true);
        }
        releaseHolds(p);
        io.flush(); // a loop task, not a read: nothing else flushes what was replayed
    }

    /**
     * A new subscribe connection is on its way (its answer is out, or its handshake began): each layer of its slots
     * holds its packets since the keyframe asked for here, until the connection is up (docs/sfu.md "Time to join").
     * Once per connection: the earlier call (at the answer) gives the keyframe the most time to arrive.
     */
    void startHolds(Participant p, long now) {
        if (!p.holding.isEmpty()) return;
        for (Slot s : p.slots) {
            if (s.track == null || !s.track.video) continue;
            for (Layer l : s.track.layers) {
                if (l.hold == null) l.hold = new KeyframeHold();
                l.hold.waiters++;
                l.hold.untilNanos = now + KeyframeHold.KEEP_NANOS;
                p.holding.add(l);
                rtcp.requestKeyframe(l, now, true);
            }
        }
    }

    /** The subscriber no longer waits for its connection (connected, failed or replaced): its holds are let go. */
    void releaseHolds(Participant p) {
        for (Layer l : p.holding) {
            KeyframeHold h = l.hold;
            if (h != null && --h.waiters <= 0) l.hold = null;
        }
        p.holding.clear();
    }

    /**
     * The one layer whose held packets a new subscriber's slot starts from: its target when the allocator set one
     * (nothing if that layer holds no keyframe), else the lowest layer holding one (the allocator moves it up as for
     * any new subscriber). One layer only: each holds its own run from its own keyframe.
     */
    private static Layer heldLayer(Slot s) {
        if (s.target != null) return s.target.hold != null && s.target.hold.ready() ? s.target : null;
        for (Layer l : s.track.layers) if (l.hold != null && l.hold.ready()) return l;
        return null;
    }

    /** Runs what {@code l} held since its keyframe through the new subscriber's slot, in arrival order. */
    private void replayHold(Slot s, Layer l, long now) {
        KeyframeHold h = l.hold;
        byte[] b = h.data();
        for (int i = 0; i < h.count(); i++) {
            int off = h.offset(i), len = h.length(i);
            int hl = RtpPacket.headerLength(b, off, len), pl = RtpPacket.payloadLength(b, off, len);
            if (hl < 0 || pl < 0) continue;
            boolean keyframe;
            Vp8Descriptor vp8 = null;
            Vp9Descriptor vp9 = null;
            if (l.track.vp9) {
                vp9 = l.svc.descriptor;
                if (!vp9.parse(b, off + hl, pl)) continue;
                keyframe = vp9.keyframe();
            } else if (l.track.vp8) {
                vp8 = l.vp8;
                if (!vp8.parse(b, off + hl, pl)) continue;
                keyframe = vp8.keyframe;
            } else {
                keyframe = H264Keyframes.isKeyframe(b, off + hl, pl);
            }
            s.forward(this, l, b, off, len, hl, pl, keyframe, vp8, vp9, now, false);
        }
        metrics.keyframeHoldsReplayed.increment();
    }

    /**
     * A subscriber's DTLS handshake began: ask its slots' publishers for keyframes now rather than only once DTLS is
     * done (onConnected asks again), so the first decodable frame is not a whole PLI → keyframe round behind the
     * handshake (time to join: docs/sfu.md "Time to join").
     */
    @Override
    public void onHandshakeStarted(WebRtcTransport t) {
        Participant p = owners.get(t);
        if (p == null || p.subscribe != t) return;
        startHolds(p, System.nanoTime());
    }

    @Override
    public void onFailed(WebRtcTransport t, String reason) {
        LOG.info("transport {} failed: {}", t.id(), reason);
        Participant p = owners.get(t);
        if (p != null && p.subscribe == t) releaseHolds(p);
        control.closeTransport(t, reason.startsWith("consent") ? SfuEvent.TRANSPORT_CLOSED : SfuEvent.TRANSPORT_FAILED);
        if (p != null && p.publish == null) {
            for (PublishedTrack tr : new ArrayList<>(p.tracksByMid.values())) control.unpublish(p, tr, p.publishEventsUrl, p.publishGeneration);
        }
    }

    @Override
    public void onRtp(WebRtcTransport t, byte[] b, int off, int len, long now) {
        Participant p = owners.get(t);
        if (p == null || p.publish != t) { metrics.drop("rtp_on_subscribe"); return; }
        ingest.onRtp(p, b, off, len, now);
    }

    /** Parses the payload (keyframe, size, audio level) and forwards to every slot of the track. */
    void route(Participant p, Layer layer, byte[] b, int off, int len, int hl, int pl, long now, boolean repair) {
        PublishedTrack tr = layer.track;
        boolean keyframe = false;
        Vp8Descriptor vp8 = null;
        Vp9Descriptor vp9 = null;
        if (tr.video && pl > 0) {
            if (tr.vp9) {
                vp9 = layer.svc.descriptor;
                if (!vp9.parse(b, off + hl, pl)) { metrics.drop("vp9_malformed"); return; }
                keyframe = vp9.keyframe();
                if (!repair) layer.svc.onPacket(len);
                if (keyframe) {
                    SvcStream st = layer.svc;
                    if (st.spatialLayers > 0) { layer.width = st.width[st.spatialLayers - 1]; layer.height = st.height[st.spatialLayers - 1]; }
                    rtcp.onKeyframe(layer.ssrc);
                }
            } else if (tr.vp8) {
                vp8 = layer.vp8;
                if (!vp8.parse(b, off + hl, pl)) { metrics.drop("vp8_malformed"); return; }
                keyframe = vp8.keyframe;
                if (vp8.temporalId >= 0 && !repair) layer.onTemporal(vp8.temporalId, len, vp8.startOfPartition && vp8.partitionId == 0);
                if (keyframe) {
                    readVp8Size(layer, b, off + hl + vp8.length, pl - vp8.length);
                    rtcp.onKeyframe(layer.ssrc);
                    if (LOG.isDebugEnabled()) LOG.debug("keyframe {} layer {} seq {}{}", tr.trackId, layer.index, RtpPacket.sequence(b, off), repair ? " (repair)" : "");
                }
            } else {
                keyframe = H264Keyframes.isKeyframe(b, off + hl, pl);
            }
        }
        if (!tr.video && !repair) {
            int level = tr.audioLevelExtId > 0 ? HeaderExtensions.audioLevel(b, off, len, tr.audioLevelExtId) : -1;
            if (level >= 0 && p.speakerSlot >= 0) p.meeting.speakers.onAudioLevel(p.speakerSlot, level, now / 1_000_000);
            // top-N audio: may move receivers' slots onto this speaker before the loop below forwards this packet
            if (p.audioSlot >= 0) p.meeting.audio.onLevel(p, level >= 0 ? level : AudioTopN.LEVEL_WITHOUT_EXTENSION, now, events);
        }
        KeyframeHold hold = layer.hold;
        if (hold != null && !repair) {
            if (now - hold.untilNanos > 0) layer.hold = null;          // nobody came for it
            else hold.record(b, off, len, keyframe && (vp9 != null ? vp9.startOfPicture() : vp8 == null || (vp8.startOfPartition && vp8.partitionId == 0)));
        }
        List<Slot> slots = tr.slots;
        for (int i = 0; i < slots.size(); i++) slots.get(i).forward(this, layer, b, off, len, hl, pl, keyframe, vp8, vp9, now, repair);
        TrackTap[] taps = tr.taps;                          // relays to other SFUs (docs/sfu.md "Relay between SFUs")
        for (int i = 0; i < taps.length; i++) taps[i].onPacket(layer.index, b, off, len, hl, keyframe, now);
    }

    /** VP8 keyframe header (RFC 6386 §9.1): 3-byte tag, start code 9d 01 2a, 14-bit width and height. */
    private static void readVp8Size(Layer layer, byte[] b, int o, int n) {
        if (n < 10 || (b[o + 3] & 0xFF) != 0x9d || b[o + 4] != 0x01 || b[o + 5] != 0x2a) return;
        layer.width = ((b[o + 6] & 0xFF) | ((b[o + 7] & 0xFF) << 8)) & 0x3FFF;
        layer.height = ((b[o + 8] & 0xFF) | ((b[o + 9] & 0xFF) << 8)) & 0x3FFF;
    }

    /** The grant allows this track's kind: audio, camera video, or (its own permission) a screen share. */
    static boolean mayPublish(GrantState g, PublishedTrack t, long now) {
        if (t.upstream != null) return t.upstream.forwarding(now);   // relayed: the origin checked the publisher's grant
        return !t.video ? g.mayPublishAudio(now) : t.screen ? g.mayPublishScreen(now) : g.mayPublishVideo(now);
    }

    /**
     * Sends an RTP packet (carrying transport seq {@code sub.twccSeq} when {@code twcc}) to a subscriber and records
     * it with the subscriber's estimator; through the test-only emulated link when one is set. False: not sent.
     */
    boolean sendToSubscriber(Participant sub, WebRtcTransport st, byte[] b, int len, boolean twcc) {
        EmulatedLink link = sub.testLink;
        if (link != null) {
            long at = System.nanoTime();
            link.offer(b, 0, len, at);                  // a drop here is a loss on the emulated wire: still "sent"
            if (twcc) sub.pacer.onPacketSent(sub.twccSeq++ & 0xFFFF, at / 1000, EmulatedLink.wireSize(len));
            return true;
        }
        if (!st.sendRtp(b, 0, len)) return false;
        if (twcc) sub.pacer.onPacketSent(sub.twccSeq++ & 0xFFFF, System.nanoTime() / 1000, st.lastRtpWireLength());
        return true;
    }

    // ================================================================== timers (media thread)

    private void tick() {
        try {
            long now = System.nanoTime();
            for (WebRtcTransport t : new ArrayList<>(owners.keySet())) t.checkConsent(now, consentTimeoutNanos);
            for (Map.Entry<WebRtcTransport, Participant> e : owners.entrySet()) {
                Participant p = e.getValue();
                if (p.subscribe == e.getKey() && p.bwe != null) {
                    p.bwe.onTick(now / 1000);
                    if (p.twccExtId > 0) sendProbeFiller(p);
                }
            }
            boolean speakerRound = ++ticks % 3 == 0;                       // every 300 ms
            for (Meeting m : meetings.values()) {
                for (Participant p : m.participants.values()) {
                    if (p.twccExtId > 0 && p.allocation != null && p.subscribe != null) {
                        if (p.allocation.due(now)) {
                            p.allocation.run(p, now, this::requestKeyframe);
                            SvcSelection.afterAllocation(p, now, this::requestKeyframe);
                        }
                    } else {
                        for (Slot s : p.slots) if (s.video && s.track != null) selectLayer(s, now);
                        for (Slot s : p.slots) if (s.video && s.track != null && s.track.vp9) SvcSelection.apply(s, now, Long.MAX_VALUE, this::requestKeyframe);
                    }
                }
                if (speakerRound) reportSpeakers(m, now);
                m.audio.tick(now, events);                                  // talkers vs. the quiet: top-N slots
                signalClients(m, now);
            }
            rtcp.sendDeferredKeyframeRequests(now);
            if (now - lastSecondTick >= 1_000_000_000L) {
                lastSecondTick = now;
                for (Meeting m : meetings.values()) {
                    for (Participant p : m.participants.values()) for (PublishedTrack t : p.tracksByMid.values()) for (Layer l : t.layers) { l.updateBitrate(now); if (t.vp9) l.svc.updateRates(now); }
                }
                for (Meeting m : meetings.values()) for (Participant p : m.participants.values()) rtcp.sendReports(p, now);
                for (Meeting m : meetings.values()) for (Participant p : m.participants.values()) p.quality.sample(p, now, events);
                control.forgetIdleMeetings(now);
                metrics.subscriberSnapshot(subscriberSnapshot(now));
                metrics.tick();
            }
            io.flush();
        } catch (RuntimeException e) {
            LOG.warn("media tick failed", e);
        }
    }

    private long ticks;

    /** Test-only: stop/start sending transport-cc feedback to publishers. */
    public void setTransportFeedbackEnabled(boolean v) { rtcp.setTransportFeedbackEnabled(v); }

    public void setRembBitrate(long bps) { rtcp.setRembBitrate(bps); }

    /** A keyframe request for {@code l}, coalesced per publisher stream (a deferred one goes out from the tick). */
    void requestKeyframe(Layer l, long now) { rtcp.requestKeyframe(l, now, false); }

    @Override
    public void onRtcp(WebRtcTransport t, byte[] b, int off, int len, long now) { rtcp.onRtcp(owners.get(t), t, b, off, len, now); }

    /** Estimates of every connected subscriber transport and the layer each video slot forwards (aggregated). */
    private SfuMetrics.SubscriberSnapshot subscriberSnapshot(long now) {
        long[] buckets = new long[SfuMetrics.ESTIMATE_BUCKETS_BPS.length + 1];
        long[] layers = new long[SfuMetrics.LAYER_GAUGE_SLOTS];
        long sum = 0, count = 0, idle = 0;
        for (Meeting m : meetings.values()) {
            for (Participant p : m.participants.values()) {
                if (p.subscribe == null || !p.subscribe.connected() || p.bwe == null) continue;
                long e = p.bwe.estimateBps();
                buckets[SfuMetrics.estimateBucket(e)]++;
                sum += e;
                count++;
                for (Slot s : p.slots) {
                    if (!s.video || s.track == null) continue;
                    if (s.current == null || !s.current.active(now)) idle++;
                    else layers[Math.min(s.current.index, layers.length - 1)]++;
                }
            }
        }
        return new SfuMetrics.SubscriberSnapshot(buckets, sum, count, layers, idle);
    }

    /** Events for clients that follow from this tick's allocations: pause notices to subscribers, dynacast to publishers. */
    private void signalClients(Meeting m, long now) {
        for (Participant p : m.participants.values()) if (p.subscribe != null) p.pauseNotices.update(p, events);
        m.dynacast.tick(now, events);
    }

    private void reportSpeakers(Meeting m, long now) {
        dev.parley.sfu.speaker.ActiveSpeakers a = m.speakers.evaluate(now / 1_000_000);
        if (a == null) return;
        ObjectNode data = JsonNodeFactory.instance.objectNode().put("sequence", a.sequence());
        var list = data.putArray("speakers");
        a.speakers().forEach(list::add);
        events.publish(m.eventsUrl, SfuEvent.ACTIVE_SPEAKERS, m.id, null, 0, data);
    }

    /**
     * Sends the padding a running probe cluster of {@code p}'s estimator asks for (docs/bwe.md "Probe clusters"):
     * padding-only RTP on a video slot's RTX SSRC (Chromium counts it for transport-cc and discards it). While a
     * cluster runs this repeats every millisecond.
     */
    private void sendProbeFiller(Participant p) {
        WebRtcTransport st = p.subscribe;
        if (st == null || !st.connected() || p.pacer == null) return;
        Slot carrier = null;
        for (Slot s : p.slots) if (s.video && s.rtxSsrc != 0 && s.rtxPayloadType != 0 && s.started) { carrier = s; break; }
        if (carrier == null) return;
        long now = System.nanoTime();
        int due;
        for (int i = 0; i < 16 && (due = p.pacer.fillerBytesDue(now / 1000)) > 0; i++) {
            int n = ProbePadding.write(ctl, carrier, p.twccExtId, p.twccSeq, Math.min(due, p.pacer.fillerPacketSize()));
            carrier.rtxSeq = (carrier.rtxSeq + 1) & 0xFFFF;
            if (!sendToSubscriber(p, st, ctl, n, true)) break;
            probePacketsSent++;
        }
        io.flush();
        if (p.pacer.probing() && !p.probeScheduled) {
            p.probeScheduled = true;
            loop.schedule(() -> {
                p.probeScheduled = false;
                if (p.subscribe == st) sendProbeFiller(p);
            }, 1, TimeUnit.MILLISECONDS);
        }
    }

    /** Picks the simulcast layer that best fits the slot's requested size; asks for a keyframe to switch. */
    private void selectLayer(Slot s, long now) {
        PublishedTrack t = s.track;
        Layer best = null, smallest = null, anyActive = null;
        for (Layer l : t.layers) {
            if (!l.active(now)) continue;
            if (anyActive == null) anyActive = l;
            if (l.width == 0) {
                if (t.layers.length > 1 && now - l.lastPliNanos > 1_000_000_000L) rtcp.requestKeyframe(l, now, false); // learn its size
                continue;
            }
            if (smallest == null || l.width < smallest.width) smallest = l;
            if (l.width <= s.maxWidth && l.height <= s.maxHeight && (best == null || l.width > best.width)) best = l;
        }
        if (best == null) best = smallest != null ? smallest : anyActive;
        if (best == null) return;
        s.target = best;
        if (s.current != best || s.waitingKeyframe) rtcp.requestKeyframe(best, now, false);
    }

    private volatile long consentTimeoutNanos = WebRtcTransport.CONSENT_TIMEOUT_NANOS;

    /** RFC 7675 consent timeout (30 s); shorter only in tests. */
    public void setConsentTimeoutNanos(long nanos) { consentTimeoutNanos = nanos > 0 ? nanos : WebRtcTransport.CONSENT_TIMEOUT_NANOS; }

    /** Only answer connectivity checks from loopback peers (everything in tests stays on 127.0.0.0/8). */
    public void setLoopbackPeersOnly(boolean v) { demux.setLoopbackPeersOnly(v); }


}
