package dev.parley.sfu.routing;

import java.util.ArrayList;
import java.util.List;

/** One published audio or video track (an m= section of a publish connection), with its simulcast layers. */
final class PublishedTrack {
    final String trackId;
    final Participant owner;
    final String mid;
    final boolean video;
    final boolean vp8;
    /** VP9: one RTP stream that may carry spatial and temporal layers (SVC), filtered per slot by {@link SvcFilter}. */
    final boolean vp9;
    final int payloadType;
    /** Negotiated RTX payload type (0 = none): the publisher repairs upstream losses on it. */
    final int rtxPayloadType;
    final int clockRate;
    final int audioLevelExtId;
    final Layer[] layers;
    final List<Slot> slots = new ArrayList<>();
    /**
     * The publisher declared this video a screen share ({@code sources} of its publish offer): it is forwarded
     * only under the grant's screen permission and comes before cameras in a subscriber's budget.
     */
    boolean screen;
    /** Relays taking this track's packets after the local fan-out (copy-on-write: the packet path only iterates). */
    TrackTap[] taps = NO_TAPS;
    static final TrackTap[] NO_TAPS = new TrackTap[0];
    /** Set when this track arrives by relay from another SFU (its origin): null for a local publisher's track. */
    Upstream upstream;

    PublishedTrack(Participant owner, String mid, boolean video, String codec, int payloadType, int rtxPayloadType,
                   int clockRate, List<String> rids, int audioLevelExtId) {
        this.trackId = owner.id + ":" + mid;
        this.owner = owner;
        this.mid = mid;
        this.video = video;
        this.vp8 = "VP8".equalsIgnoreCase(codec);
        this.vp9 = "VP9".equalsIgnoreCase(codec);
        this.payloadType = payloadType;
        this.rtxPayloadType = rtxPayloadType;
        this.clockRate = clockRate;
        this.audioLevelExtId = audioLevelExtId;
        int n = Math.max(1, rids.size());
        layers = new Layer[n];
        for (int i = 0; i < n; i++) layers[i] = new Layer(this, rids.isEmpty() ? null : rids.get(i), i);
    }

    Layer layer(String rid) {
        for (Layer l : layers) if (l.rid != null && l.rid.equals(rid)) return l;
        return null;
    }

    String kind() { return video ? "video" : "audio"; }

    /** {@code microphone | camera | screen}, as told to subscribers in slot assignments and track events. */
    String source() { return !video ? "microphone" : screen ? "screen" : "camera"; }
}
