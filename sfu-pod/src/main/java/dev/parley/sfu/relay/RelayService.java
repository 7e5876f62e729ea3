package dev.parley.sfu.relay;

import dev.parley.sfu.routing.ControlException;
import dev.parley.sfu.routing.MeetingControl;
import dev.parley.sfu.routing.Router;
import dev.parley.sfu.routing.TrackHandle;
import dev.parley.sfu.worker.MediaWorker;
import dev.parley.sfu.worker.WorkerPool;

import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Relays between SFU processes (docs/sfu.md "Relay between SFUs"): the internal API's relay requests, run on the
 * meeting's media worker. A relay is asked for at both ends by the meeting's owner controller: the receiving SFU
 * accepts it first ({@link #accept}: wire SSRCs and its endpoint), then the origin sends ({@link #send}). Both
 * requests carry the meeting's {@code controller_epoch} and are fenced like grants.
 */
public final class RelayService {
    /** A track on an accept request: {@code layers} are the simulcast indices that will cross. */
    public record InTrack(String trackId, boolean video, int simulcastLayers, List<Integer> layers) {}

    /** A track on a send request: layer index → the wire SSRC the receiver gave it. */
    public record OutTrack(String trackId, Map<Integer, Integer> ssrcs) {}

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RelayService.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private final WorkerPool workers;
    private final String self;
    private final Map<MediaWorker, RelayTable> tables = new IdentityHashMap<>();
    final RelayCounters counters = new RelayCounters();

    public RelayService(WorkerPool workers, String self) {
        this.workers = workers;
        this.self = self;
        for (MediaWorker w : workers.workers()) {
            RelayTable t = new RelayTable(w.router());
            tables.put(w, t);
            Router r = w.router();
            r.call(() -> { r.setUnboundPacketHandler(t); return null; });
            r.every(100, () -> {
                try {
                    t.fence();
                } catch (RuntimeException e) {         // a throwing periodic task would never run again
                    LOG.warn("relay fence/report round failed", e);
                }
            });
        }
    }

    /** The worker of a meeting this SFU carries; refused (counted) when it carries none. */
    private RelayTable table(String meetingId) {
        MediaWorker w = workers.find(meetingId).orElse(null);
        if (w == null || !w.router().call(() -> w.router().control().carries(meetingId))) {
            counters.refused("unknown_meeting");
            throw new ControlException.NotFound("meeting not carried by this SFU");
        }
        return tables.get(w);
    }

    /** Receiving end: returns {relay_id, address, udp_port, rtcp_ssrc, tracks[{track_id, layers[{index, ssrc}]}]}. */
    public Map<String, Object> accept(String relayId, String meetingId, long epoch, String originSfu, RelayKey key, List<InTrack> tracks) {
        RelayTable table = table(meetingId);
        Router r = table.router;
        return r.call(() -> {
            MeetingControl c = r.control();
            fence(c, meetingId, epoch);
            int rtcpSsrc = freeSsrc(table, List.of());
            List<Integer> used = new ArrayList<>(List.of(rtcpSsrc));
            RelayIn in = new RelayIn(relayId, meetingId, epoch, originSfu, rtcpSsrc, key, c, r::flush, r.metrics(),
                    counters.pair("in", originSfu));
            List<Object> answer = new ArrayList<>();
            for (InTrack t : tracks) {
                TrackHandle local = c.track(meetingId, t.trackId());
                if (local != null && !local.relayed()) throw refused("bad_request", new ControlException.Invalid("tracks: " + t.trackId() + " is published on this SFU"));
                int[] ssrcs = new int[t.simulcastLayers()];
                List<Object> layers = new ArrayList<>();
                for (int i : t.layers()) {
                    if (i < 0 || i >= t.simulcastLayers()) throw refused("bad_request", new ControlException.Invalid("tracks: layer " + i + " outside simulcast_layers"));
                    ssrcs[i] = freeSsrc(table, used);
                    used.add(ssrcs[i]);
                    layers.add(Map.of("index", i, "ssrc", ssrcs[i] & 0xFFFFFFFFL));
                }
                in.tracks.add(in.new Expected(t.trackId(), t.video(), t.simulcastLayers(), ssrcs));
                answer.add(Map.of("track_id", t.trackId(), "layers", layers));
            }
            table.addIn(in);
            LOG.info("relay {} accepted for meeting {} from {} ({} layers, epoch {}, {})", relayId, meetingId, originSfu,
                    in.relayedLayers(), epoch, key.profile());
            Map<String, Object> res = new LinkedHashMap<>();
            res.put("relay_id", relayId);
            res.put("address", r.endpoint().address());
            res.put("udp_port", r.endpoint().udpPort());
            res.put("rtcp_ssrc", rtcpSsrc & 0xFFFFFFFFL);
            res.put("tracks", answer);
            return res;
        });
    }

    /** Origin end: taps the tracks and sends the listed layers to {@code target}. */
    public Map<String, Object> send(String relayId, String meetingId, long epoch, String targetSfu, InetSocketAddress target,
                                    int rtcpSsrc, RelayKey key, boolean forwardRelayed, List<OutTrack> tracks) {
        RelayTable table = table(meetingId);
        Router r = table.router;
        return r.call(() -> {
            MeetingControl c = r.control();
            fence(c, meetingId, epoch);
            List<TrackHandle> handles = new ArrayList<>();
            List<int[]> ssrcs = new ArrayList<>();
            for (OutTrack t : tracks) {
                TrackHandle h = c.track(meetingId, t.trackId());
                if (h == null) throw refused("unknown_track", new ControlException.NotFound("tracks: " + t.trackId() + " is not published on this SFU"));
                if (h.relayed() && !forwardRelayed) {
                    // no loops: a relayed track goes to a further relay only when the plan says so
                    throw refused("relayed_track", new ControlException.Invalid("tracks: " + t.trackId() + " arrives here by relay (forward_relayed not set)"));
                }
                int[] s = new int[h.layers()];
                for (Map.Entry<Integer, Integer> e : t.ssrcs().entrySet()) {
                    if (e.getKey() < 0 || e.getKey() >= s.length) throw refused("bad_request", new ControlException.Invalid("tracks: layer " + e.getKey() + " outside the track's layers"));
                    s[e.getKey()] = e.getValue();
                }
                handles.add(h);
                ssrcs.add(s);
            }
            RelayOut out = new RelayOut(relayId, meetingId, epoch, targetSfu, r.udpPath(target), rtcpSsrc, key, r.metrics(),
                    counters.pair("out", targetSfu));
            for (int i = 0; i < handles.size(); i++) out.add(handles.get(i), ssrcs.get(i));
            table.addOut(out);
            LOG.info("relay {} sending meeting {} to {} at {} ({} layers, epoch {})", relayId, meetingId, targetSfu, target,
                    out.relayedLayers(), epoch);
            List<Object> answer = new ArrayList<>();
            for (RelayOut.Tap t : out.taps) {
                List<Integer> layers = new ArrayList<>();
                for (int i = 0; i < t.wireSsrc.length; i++) if (t.wireSsrc[i] != 0) layers.add(i);
                answer.add(Map.of("track_id", t.track.trackId(), "layers", layers));
            }
            return Map.of("relay_id", relayId, "tracks", answer);
        });
    }

    /**
     * The meeting's tracks published here (not relayed copies), read by a new owner to re-learn its relays' tracks:
     * {meeting_id, controller_epoch (the highest seen here), tracks}. Fenced on the epoch (a lower one is refused as
     * stale, counted) but a read never raises it: only grants and relays carry a new owner's authority.
     */
    public Map<String, Object> tracks(String meetingId, long epoch) {
        MediaWorker w = workers.find(meetingId).orElse(null);
        if (w == null) throw new ControlException.NotFound("meeting not carried by this SFU"); // a read: not counted
        Router r = w.router();
        return r.call(() -> {
            MeetingControl c = r.control();
            if (!c.carries(meetingId)) throw new ControlException.NotFound("meeting not carried by this SFU");
            long highest = c.highestEpoch(meetingId);
            if (epoch < highest) {
                counters.refused("stale_epoch");
                throw new ControlException.StaleEpoch(highest);
            }
            Map<String, Object> res = new LinkedHashMap<>();
            res.put("meeting_id", meetingId);
            res.put("controller_epoch", highest);
            res.put("tracks", c.publishedTracks(meetingId));
            return res;
        });
    }

    /** Ends a relay at this end (idempotent); fenced on the epoch like a participant removal. */
    public void close(String relayId, long epoch) {
        for (Map.Entry<MediaWorker, RelayTable> e : tables.entrySet()) {
            Router r = e.getKey().router();
            RelayTable t = e.getValue();
            r.call(() -> {
                Relay rel = t.byId.get(relayId);
                if (rel == null) return null;
                fence(r.control(), rel.meetingId, epoch);
                t.remove(relayId, "closed");
                LOG.info("relay {} closed on request", relayId);
                return null;
            });
        }
    }

    private void fence(MeetingControl c, String meetingId, long epoch) {
        try {
            c.admitRelayEpoch(meetingId, epoch);
        } catch (ControlException.StaleEpoch e) {
            counters.refused("stale_epoch");
            throw e;
        } catch (ControlException.NotFound e) {
            counters.refused("unknown_meeting");
            throw e;
        }
    }

    private ControlException refused(String reason, ControlException e) {
        counters.refused(reason);
        return e;
    }

    private static int freeSsrc(RelayTable t, List<Integer> taken) {
        while (true) {
            int s = RANDOM.nextInt();
            if (t.ssrcFree(s) && !taken.contains(s)) return s;
        }
    }

    /** Every relay of every worker, for {@code GET /state}. */
    public List<Map<String, Object>> state() {
        List<Map<String, Object>> all = new ArrayList<>();
        for (Map.Entry<MediaWorker, RelayTable> e : tables.entrySet()) {
            MediaWorker w = e.getKey();
            for (Map<String, Object> s : w.router().call(e.getValue()::state)) {
                s.put("worker", w.index());
                all.add(s);
            }
        }
        return all;
    }

    /** Relay series for {@code /metrics}. */
    public String prometheus() {
        Map<String, Long> layers = new HashMap<>(), relays = new HashMap<>();
        for (Map.Entry<MediaWorker, RelayTable> e : tables.entrySet()) {
            for (Relay r : e.getKey().router().call(() -> new ArrayList<>(e.getValue().byId.values()))) {
                String k = (r instanceof RelayOut ? "out" : "in") + "\u0000" + r.peer;
                int n = e.getKey().router().call(r::relayedLayers);
                layers.merge(k, (long) n, Long::sum);
                relays.merge(k, 1L, Long::sum);
            }
        }
        return counters.prometheus(self, layers, relays);
    }

    /** A relay request without the internal bearer: refused by the API before it reaches us, counted here. */
    public void refusedUnauthenticated() { counters.refused("unauthenticated"); }

    /** Refused relay requests so far for {@code reason} (tests). */
    public long refused(String reason) { return counters.refusedCount(reason); }
}
