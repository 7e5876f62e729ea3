package dev.parley.sfu.relay;

import dev.parley.media.srtp.SrtpContext;
import dev.parley.sfu.metrics.SfuMetrics;

import java.util.LinkedHashMap;
import java.util.Map;

/** What both ends of a relay have: identity, the controller epoch it was granted under, counters, state. Media thread. */
abstract class Relay {
    final String id, meetingId, peer;
    final long epoch;
    final SfuMetrics metrics;
    final RelayCounters.Pair counters;
    /** False once closed (asked, fenced by a newer epoch, or the meeting ended here): nothing more is forwarded. */
    volatile boolean active = true;
    String closedBecause;
    long packets, authFailures;

    Relay(String id, String meetingId, long epoch, String peer, SfuMetrics metrics, RelayCounters.Pair counters) {
        this.id = id;
        this.meetingId = meetingId;
        this.epoch = epoch;
        this.peer = peer;
        this.metrics = metrics;
        this.counters = counters;
    }

    /** An SRTP/SRTCP packet that did not authenticate under this relay's key (or was a replay): dropped, counted. */
    void authFailed(int code) {
        authFailures++;
        metrics.drop(code == SrtpContext.ERR_REPLAY ? "relay_replay" : code == SrtpContext.ERR_AUTH ? "relay_auth" : "relay_malformed");
    }

    abstract int relayedLayers();

    void close() { active = false; }

    abstract Map<String, Object> state();

    Map<String, Object> base(String direction) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("relay_id", id);
        s.put("meeting_id", meetingId);
        s.put("direction", direction);
        s.put(direction.equals("out") ? "to_sfu" : "from_sfu", peer);
        s.put("controller_epoch", epoch);
        s.put("state", active ? "active" : "closed");
        if (closedBecause != null) s.put("closed_because", closedBecause);
        s.put("packets", packets);
        s.put("auth_failures", authFailures);
        return s;
    }
}
