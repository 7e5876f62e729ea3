package dev.parley.sfu.routing;

import dev.parley.sfu.grant.GrantState;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Renders the SFU's state for {@code GET /state}; off the packet path, so plain maps and lists are fine. */
final class StateView {
    private StateView() {}

    /** The GET /state snapshot (media thread): meetings, participants, slots, layers, estimator state. */
    static Map<String, Object> render(Collection<Meeting> meetings, int transports, long probePacketsSent) {
        Map<String, Object> r = new LinkedHashMap<>();
        List<Map<String, Object>> ms = new ArrayList<>();
        long now = System.nanoTime();
        for (Meeting m : meetings) {
            Map<String, Object> mm = new LinkedHashMap<>();
            mm.put("meeting_id", m.id);
            mm.put("controller_epoch", m.grants.highestEpoch());
            List<Map<String, Object>> ps = new ArrayList<>();
            for (Participant p : m.participants.values()) {
                Map<String, Object> pm = new LinkedHashMap<>();
                GrantState g = p.grant();
                pm.put("participant_id", p.id);
                pm.put("publish_transport", p.publish == null ? null : p.publish.state().name());
                pm.put("subscribe_transport", p.subscribe == null ? null : p.subscribe.state().name());
                pm.put("grant_version", g.version());
                pm.put("grant_live_ms", Math.max(0, (g.expiresAtNanos() - now) / 1_000_000));
                // a revocation is a live grant that authorizes nothing (removal, end, ban): not the same as a grant
                pm.put("grant_authorizes", g.audio() || g.video() || g.screen() || g.subscribe());
                pm.put("tracks", p.tracksByMid.values().stream().map(t -> t.trackId).toList());
                Map<String, String> sources = new LinkedHashMap<>();
                for (PublishedTrack t : p.tracksByMid.values()) sources.put(t.trackId, t.source());
                pm.put("track_sources", sources);
                pm.put("pinned", List.copyOf(p.pinned));
                pm.put("slots", MeetingControl.assignments(p));
                pm.put("congestion_control", congestionState(p, now));
                pm.put("rtt_ms", p.rtt.rttMs());
                pm.put("rtt_last_sample_ms", p.rtt.lastSampleMs());
                pm.put("rtt_samples", p.rtt.samples());
                List<Map<String, Object>> layers = new ArrayList<>();
                for (Slot s : p.slots) {
                    if (!s.video || s.track == null) continue;
                    Map<String, Object> lm = new LinkedHashMap<>();
                    lm.put("mid", s.mid);
                    lm.put("track_id", s.track.trackId);
                    lm.put("spatial", s.current == null ? -1 : s.current.index);
                    lm.put("target_spatial", s.target == null ? -1 : s.target.index);
                    lm.put("width", s.current == null ? 0 : s.current.width);
                    lm.put("height", s.current == null ? 0 : s.current.height);
                    lm.put("paused", s.paused);
                    lm.put("layer_switches", s.layerSwitches);
                    lm.put("temporal", s.temporal.current);              // highest TID forwarded (3 = all)
                    lm.put("target_temporal", s.temporal.target);
                    lm.put("temporal_layers", s.current == null ? 0 : s.current.temporalLayers);
                    lm.put("temporal_dropped_packets", s.temporal.droppedPackets());
                    if (s.track.vp9) lm.put("svc", svcState(s));
                    layers.add(lm);
                }
                pm.put("video_layers", layers);
                pm.put("dynacast", m.dynacast.stateOf(p));
                ps.add(pm);
            }
            mm.put("participants", ps);
            ms.add(mm);
        }
        r.put("meetings", ms);
        r.put("transports", transports);
        r.put("probe_packets_sent", probePacketsSent);
        return r;
    }

    /** A VP9 slot's SVC layers: forwarded and wanted SID/TID (7 = all), the stream's structure, drops. */
    private static Map<String, Object> svcState(Slot s) {
        SvcStream st = s.track.layers[0].svc;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("spatial", s.svc.currentSpatial);
        m.put("target_spatial", s.svc.targetSpatial);
        m.put("temporal", s.svc.currentTemporal);
        m.put("target_temporal", s.svc.targetTemporal);
        m.put("spatial_layers", st.layers());
        List<String> sizes = new ArrayList<>();
        for (int i = 0; i < st.spatialLayers; i++) sizes.add(st.width[i] + "x" + st.height[i]);
        m.put("sizes", sizes);
        List<Long> bps = new ArrayList<>();
        for (int i = 0; i < st.layers(); i++) bps.add(st.spatialBps[i]);
        m.put("spatial_bps", bps);
        m.put("dropped_packets", s.svc.droppedPackets());
        m.put("spatial_switches", s.svc.spatialSwitches);
        return m;
    }

    /** The subscribe transport's estimator snapshot; null without a subscribe transport. */
    private static Map<String, Object> congestionState(Participant p, long now) {
        if (p.subscribe == null || p.bwe == null) return null;
        dev.parley.sfu.bwe.BweStats st = p.bwe.stats(now / 1000);
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("transport_cc", p.twccExtId > 0);
        c.put("mode", st.mode().name());
        c.put("estimate_bps", st.estimateBps());
        c.put("delay_based_bps", st.delayBasedBps());
        c.put("loss_based_bps", st.lossBasedBps());
        c.put("acked_bps", st.ackedBps());
        c.put("send_bps", st.sendBps());
        c.put("loss_fraction", st.lossFraction());
        c.put("usage", st.usage().name());
        c.put("rtt_ms", st.rttMs());
        c.put("feedback_packets_unknown", st.unknownFeedbackPackets());
        var a = p.allocation == null ? null : p.allocation.last();
        if (a != null) {
            c.put("budget_bps", a.budgetBps());
            c.put("allocated_bps", a.allocatedBps());
            c.put("desired_bps", a.desiredBps());
        }
        if (p.testLink != null) c.put("test_link_capacity_bps", p.testLink.emulator.capacityBps());
        return c;
    }
}
