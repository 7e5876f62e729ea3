package dev.parley.sfu.routing;

/**
 * Where a relayed track's packets come from (the relay from its origin SFU): it decides whether the track may be
 * forwarded right now (in place of a local publisher's grant) and takes this SFU's keyframe requests toward the
 * origin (already coalesced per layer by {@link RtcpTerminator}).
 */
public interface Upstream {
    /** False once the relay was closed or fenced by a newer controller epoch: nothing of it is forwarded. */
    boolean forwarding(long now);

    /** A PLI for layer {@code layerIndex}, to be sent toward the origin. */
    void requestKeyframe(int layerIndex, long now);
}
