package dev.parley.sfu.allocation;

/**
 * One operating point a publisher's track can be forwarded at: spatial layer (simulcast encoding or SVC
 * spatial layer) × temporal layer. {@code bitrateBps} is what forwarding exactly this point costs, i.e. it
 * includes the lower temporal layers it depends on (T2 at 30 fps includes T0 and T1).
 *
 * <p>For a layer the publisher currently does not send (dynacast paused it) the SFU passes its last measured
 * or nominal bitrate: the allocator must still be able to ask for it, which is what makes dynacast resume it.
 * Audio tracks have a single layer (0, 0) with their bitrate and no dimensions.
 */
public record VideoLayer(int spatial, int temporal, long bitrateBps, int width, int height, double fps) {

    public VideoLayer {
        if (spatial < 0 || temporal < 0 || bitrateBps < 0) {
            throw new IllegalArgumentException("layer indices and bitrate must be >= 0");
        }
    }

    public static VideoLayer audio(long bitrateBps) {
        return new VideoLayer(0, 0, bitrateBps, 0, 0, 0);
    }
}
