package dev.parley.recorder.sfu;

import dev.parley.media.dtls.DtlsCertificate;
import dev.parley.recorder.media.TrackSource;
import dev.parley.recorder.media.TrackSourceFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recorder as a hidden, subscribe-only participant of the meeting: asks the {@link SubscribeBroker} (the
 * owner controller) for a transport, connects to the SFU over DTLS-SRTP and turns every assigned recvonly slot
 * into a {@link TrackSource} ({@link #poll()}). Tracks published after the recorder joined fill free slots; their
 * track ids are learnt by a re-offer when their media shows up, so they are recorded too.
 *
 * <p>{@link #resubscribe()} is the SFU drain: a new transport generation (the controller places it on a usable
 * SFU) is connected while the old one still delivers; its slots become second legs of the same tracks (the
 * pipeline's stitcher aligns them) and the old connection is retired once the new legs carry media.
 */
public final class SfuTrackSources implements TrackSourceFactory {
    private static final Logger LOG = LoggerFactory.getLogger(SfuTrackSources.class);
    /** How long both connections overlap after the new one carries every track the old one had. */
    static final long OVERLAP_NANOS = 2_000_000_000L;
    private static final long REFRESH_INTERVAL_NANOS = 2_000_000_000L;
    /** A slot with media whose track we could not learn is recorded under its mid after this long. */
    private static final long NAME_WAIT_NANOS = 5_000_000_000L;

    private final SubscribeBroker broker;
    private final InetAddress mediaAddress;
    private final int slotsPerKind;
    private final long keyframeIntervalNanos;
    private final DtlsCertificate certificate = DtlsCertificate.generate();
    private final ConcurrentLinkedQueue<TrackSource> ready = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<TrackSource> retired = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;
    private volatile boolean resubscribeWanted;
    private volatile String refusal;
    private volatile SfuConnection current;
    private volatile SfuConnection previous;
    private long nextGeneration = 1;
    private Thread control;

    public SfuTrackSources(SubscribeBroker broker, InetAddress mediaAddress, int slotsPerKind, int keyframeIntervalSeconds) {
        this.broker = broker;
        this.mediaAddress = mediaAddress;
        this.slotsPerKind = slotsPerKind;
        this.keyframeIntervalNanos = keyframeIntervalSeconds * 1_000_000_000L;
    }

    /** Starts joining in the background; tracks come from {@link #poll()}. */
    @Override
    public List<TrackSource> open() {
        control = Thread.ofPlatform().daemon().name("sfu-subscriber").start(this::controlLoop);
        return List.of();
    }

    @Override
    public List<TrackSource> poll() {
        return drainQueue(ready);
    }

    @Override
    public List<TrackSource> retired() {
        return drainQueue(retired);
    }

    /** Why the controller refused us for good, or null. */
    @Override
    public String failure() {
        return refusal;
    }

    /** Make-before-break move to a new transport (SFU drain). */
    @Override
    public boolean resubscribe() {
        resubscribeWanted = true;
        return true;
    }

    /** Whether the current connection finished ICE + DTLS. */
    public boolean connected() {
        SfuConnection c = current;
        return c != null && c.pc.connected();
    }

    /** Slots of the current connection whose track pipeline is attached (ready for the first keyframe). */
    public int attachedTracks() {
        SfuConnection c = current;
        int n = 0;
        if (c != null) {
            for (SfuSlot s : c.slots) {
                if (s.sink != null) {
                    n++;
                }
            }
        }
        return n;
    }

    /** For logs and test diagnostics: connections, hand-over, packets. */
    public String describe() {
        SfuConnection c = current;
        SfuConnection p = previous;
        return "current=" + (c == null ? "none" : c.sfuPod + "/g" + c.generation + " received=" + c.pc.received())
                + " previous=" + (p == null ? "none" : p.sfuPod + "/g" + p.generation + " received=" + p.pc.received())
                + " resubscribeWanted=" + resubscribeWanted + " failure=" + refusal;
    }

    /** No older connection is left (a re-subscription finished its hand-over). */
    public boolean handedOver() {
        return previous == null && !resubscribeWanted;
    }

    /** The SFU pod the current connection uses (null before the first). */
    public String sfuPod() {
        SfuConnection c = current;
        return c == null ? null : c.sfuPod;
    }

    /** Packets received over all connections so far. */
    public long packetsReceived() {
        long n = 0;
        SfuConnection c = current;
        SfuConnection p = previous;
        if (c != null) {
            n += c.pc.received();
        }
        if (p != null) {
            n += p.pc.received();
        }
        return n;
    }

    private static List<TrackSource> drainQueue(ConcurrentLinkedQueue<TrackSource> q) {
        List<TrackSource> out = new ArrayList<>();
        TrackSource s;
        while ((s = q.poll()) != null) {
            out.add(s);
        }
        return out;
    }

    private void controlLoop() {
        long backoffMs = 250;
        while (!closed && refusal == null) {
            try {
                if (current == null || resubscribeWanted) {
                    SfuConnection fresh = connect(nextGeneration);
                    nextGeneration++;
                    if (current != null) {
                        LOG.info("re-subscribed: transport generation {} on {} (was {} on {})", fresh.generation,
                                fresh.sfuPod, current.generation, current.sfuPod);
                        previous = current;
                    }
                    current = fresh;
                    resubscribeWanted = false;
                    backoffMs = 250;
                }
                tick(System.nanoTime());
                Thread.sleep(100);
            } catch (SubscribeBroker.RefusedException e) {
                refusal = e.getMessage();
                LOG.error("the controller refused the recorder's subscription: {}", e.getMessage());
            } catch (IOException | RuntimeException e) {
                LOG.warn("subscribing through the SFU failed (retrying in {} ms): {}", backoffMs, e.toString());
                sleepQuietly(backoffMs);
                backoffMs = Math.min(backoffMs * 2, 4000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private SfuConnection connect(long generation) throws IOException {
        ClientPeerConnection pc = new ClientPeerConnection(certificate, mediaAddress);
        try {
            String offer = RecvOnlyOffer.build(pc.transportLines(), slotsPerKind);
            SubscribeBroker.Subscription sub = broker.subscribe(generation, offer);
            SfuAnswer answer = SfuAnswer.parse(sub.sdpAnswer());
            SfuConnection c = new SfuConnection(generation, sub.sfuPod(), offer, pc, answer.slots());
            c.apply(sub.assignments());
            pc.connect(answer, c, 10_000);
            LOG.info("subscribed through SFU {} as {} (transport generation {}, {} slots, {} assigned)", sub.sfuPod(),
                    sub.participantId(), generation, answer.slots().size(), sub.assignments().size());
            return c;
        } catch (IOException | RuntimeException e) {
            pc.close();
            throw e;
        }
    }

    /** Control-thread housekeeping: consent, names, keyframes, new tracks, drain hand-over. */
    private void tick(long now) throws IOException {
        SfuConnection c = current;
        c.pc.keepAlive();
        SfuConnection p = previous;
        if (p != null) {
            p.pc.keepAlive();
        }
        if (c.hasUnnamedMedia() && now - c.lastRefreshNanos > REFRESH_INTERVAL_NANOS) {
            c.lastRefreshNanos = now;
            // same generation, same offer: a re-offer on the existing transport answers the current assignments
            c.apply(broker.subscribe(c.generation, c.offer).assignments());
        }
        for (SfuSlot s : c.slots) {
            // an assigned slot becomes a track at once, so its pipeline is ready before its first keyframe; a
            // slot whose assignment we could not learn is recorded under its mid once it carries media
            boolean unnamedTimeout = s.firstPacketNanos != 0 && now - s.firstPacketNanos > NAME_WAIT_NANOS;
            if (s.source == null && (s.trackId != null || unnamedTimeout)) {
                s.source = new SfuSlotSource(s, s.trackId != null ? s.trackId : "slot-" + s.mid);
                ready.add(s.source);
            }
            if (s.video && s.sink != null && (s.lastPliNanos == 0 || now - s.lastPliNanos > keyframeIntervalNanos)) {
                // a segment starts at a keyframe; browsers send them rarely unless asked
                s.lastPliNanos = now;
                c.pc.requestKeyframe(c.localSsrc, s.ssrc);
            }
        }
        if (p != null && handedOver(p, c, now)) {
            for (SfuSlot s : p.slots) {
                if (s.source != null) {
                    retired.add(s.source);
                }
            }
            previous = null;
            // the pipelines close the retired sources; the connection goes once they had time to do so
            Thread.ofVirtual().start(() -> {
                sleepQuietly(1000);
                p.pc.close();
            });
            LOG.info("left transport generation {} on {}", p.generation, p.sfuPod);
        }
    }

    /** Every track the old connection delivered has carried media on the new one for the overlap time. */
    private static boolean handedOver(SfuConnection old, SfuConnection fresh, long now) {
        Map<String, SfuSlot> byTrack = new HashMap<>();
        for (SfuSlot s : fresh.slots) {
            if (s.source != null) {
                byTrack.put(s.source.track().trackId(), s);
            }
        }
        for (SfuSlot s : old.slots) {
            if (s.source == null) {
                continue;
            }
            SfuSlot n = byTrack.get(s.source.track().trackId());
            boolean oldStillLive = now - s.lastPacketNanos < OVERLAP_NANOS;
            boolean newCarries = n != null && n.firstPacketNanos != 0 && now - n.firstPacketNanos >= OVERLAP_NANOS;
            if (oldStillLive && !newCarries) {
                return false;
            }
        }
        return true;
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closed = true;
        if (control != null) {
            control.interrupt();
        }
        SfuConnection c = current;
        SfuConnection p = previous;
        if (c != null) {
            c.pc.close();
        }
        if (p != null) {
            p.pc.close();
        }
    }
}
