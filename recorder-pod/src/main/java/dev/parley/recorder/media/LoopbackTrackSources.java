package dev.parley.recorder.media;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Tracks from {@code PARLEY_RECORDER_RTP_TRACKS}: comma-separated {@code trackId:codec:port}, e.g.
 * {@code cam:vp8:5004,mic:opus:5006}; plain RTP on 127.0.0.1. Test/local stand-in for the SFU subscription.
 */
public final class LoopbackTrackSources implements TrackSourceFactory {
    private final List<String> specs;

    public LoopbackTrackSources(List<String> specs) {
        this.specs = specs;
    }

    @Override
    public List<TrackSource> open() throws IOException {
        if (specs.isEmpty()) {
            throw new IllegalArgumentException("PARLEY_RECORDER_RTP_TRACKS is empty: nothing to record");
        }
        List<TrackSource> out = new ArrayList<>();
        for (String s : specs) {
            String[] p = s.split(":");
            if (p.length != 3) {
                throw new IllegalArgumentException("track spec must be trackId:codec:port, got " + s);
            }
            TrackSpec spec = switch (p[1].toLowerCase(Locale.ROOT)) {
                case "vp8" -> TrackSpec.vp8(p[0]);
                case "opus" -> TrackSpec.opus(p[0]);
                default -> throw new IllegalArgumentException("codec must be vp8 or opus, got " + p[1]);
            };
            out.add(new LoopbackRtpTrackSource(spec,
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(p[2]))));
        }
        return out;
    }
}
