package dev.parley.controller.relay;

import java.util.List;

/** A relay the owner created at both SFUs (receiver, then origin) for one hop of one track, and what it carries. */
public record AppliedRelay(String relayId, String trackId, String from, String to, List<Integer> layers, long epoch) {
    public AppliedRelay {
        layers = List.copyOf(layers);
    }

    /** The hop's key in the owner's table: one relay per track and SFU pair. */
    public String key() {
        return key(trackId, from, to);
    }

    static String key(String trackId, String from, String to) {
        return trackId + "|" + from + "|" + to;
    }
}
