package dev.parley.controller.relay;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Reads a meeting's published tracks from the SFUs carrying it ({@code GET /internal/v1/meetings/{id}/tracks},
 * fenced on our epoch) into the owner's track table. Needed because SFUs post {@code track_published} to the
 * {@code events_url} of whoever created the transport: a new owner never hears of tracks published before it took
 * over, and events are hints that may be lost. So the driver reads at takeover (before planning) and every
 * {@link #INTERVAL_NANOS} while a meeting spans SFUs.
 */
final class TrackSync {
    static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(TrackSync.class);
    private final RelayCalls calls;

    TrackSync(RelayCalls calls) {
        this.calls = calls;
    }

    boolean due(MeetingRelays m, long now) {
        return !m.synced || now - m.syncedAt > INTERVAL_NANOS;
    }

    /**
     * Reads every SFU of {@code placement} still in the registry and merges: a track its SFU lists is learnt (when its
     * publisher is placed there), a track of a publisher placed there that it no longer lists is forgotten unless an
     * event taught it after the read began. Marks {@code m} synced when every SFU answered.
     */
    void sync(String meetingId, MeetingRelays m, long epoch, Map<String, String> placement, Function<String, String> urlOf) {
        long started = System.nanoTime();
        boolean all = true;
        int learnt = 0;
        for (String pod : new HashSet<>(placement.values())) {
            String url = urlOf.apply(pod);
            if (url == null) continue; // gone from the registry: its participants move; nothing to read there
            RelayCalls.Answer a = calls.tracks(url, meetingId, epoch);
            List<TrackInfo> listed;
            if (a.status() == 404) {
                listed = List.of(); // it carries nothing of the meeting
            } else if (a.ok() && a.body() != null) {
                listed = parse(a.body().path("tracks"));
            } else {
                LOG.info("tracks of meeting {} at {} not read ({} {}); tried again next round", meetingId, pod, a.status(), a.code());
                all = false;
                continue;
            }
            learnt += merge(m, pod, listed, placement, started);
        }
        if (all) {
            m.synced = true;
            m.syncedAt = started;
        }
        if (learnt > 0) LOG.info("meeting {}: {} track(s) learnt from its SFUs (epoch {})", meetingId, learnt, epoch);
    }

    static List<TrackInfo> parse(JsonNode arr) {
        List<TrackInfo> out = new ArrayList<>();
        for (JsonNode t : arr) {
            String id = t.path("track_id").asText(null), pid = t.path("participant_id").asText(null);
            if (id == null || pid == null) continue;
            out.add(new TrackInfo(id, pid, t.path("kind").asText("video"), t.path("simulcast_layers").asInt(1)));
        }
        return out;
    }

    /** Pure merge of one SFU's list; returns how many tracks were new. */
    static int merge(MeetingRelays m, String pod, List<TrackInfo> listed, Map<String, String> placement, long started) {
        Map<String, TrackInfo> byId = new HashMap<>();
        for (TrackInfo t : listed) if (pod.equals(placement.get(t.publisher()))) byId.put(t.trackId(), t);
        int n = 0;
        for (TrackInfo t : byId.values()) {
            if (!t.equals(m.tracks.get(t.trackId()))) n++;
            m.tracks.put(t.trackId(), t);
            m.learnedAt.putIfAbsent(t.trackId(), started);
        }
        for (TrackInfo t : new ArrayList<>(m.tracks.values())) {
            Long at = m.learnedAt.get(t.trackId());
            if (pod.equals(placement.get(t.publisher())) && !byId.containsKey(t.trackId()) && (at == null || at - started < 0)) {
                m.forget(t.trackId());
            }
        }
        return n;
    }
}
