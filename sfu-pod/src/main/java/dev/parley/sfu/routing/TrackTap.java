package dev.parley.sfu.routing;

/**
 * Something besides the local slots that takes a track's packets after the fan-out (a relay to another SFU). Called
 * on the media thread for every packet the track routes, with the parsed keyframe flag; the array is only valid
 * during the call. Must not allocate or block.
 */
public interface TrackTap {
    void onPacket(int layerIndex, byte[] b, int off, int len, int headerLength, boolean keyframe, long now);

    /** The highest simulcast layer this tap needs (dynacast keeps the publisher sending it); -1: none. */
    default int highestLayer() { return -1; }

    /**
     * The largest tile the subscribers behind this tap show the track in (a relay: its receiver's report), packed as
     * {@code width << 32 | height}; -1 while unknown, which counts as wanting every layer.
     */
    default long wantedTile() { return -1; }
}
