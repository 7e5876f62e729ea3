package dev.parley.recorder.sfu;

import dev.parley.recorder.media.RtpSink;
import dev.parley.recorder.media.TrackSource;
import dev.parley.recorder.media.TrackSpec;

/** One slot of one SFU connection as a leg of a recorded track. */
final class SfuSlotSource implements TrackSource {
    private final SfuSlot slot;
    private final TrackSpec spec;

    SfuSlotSource(SfuSlot slot, String trackId) {
        this.slot = slot;
        this.spec = slot.video ? TrackSpec.vp8(trackId) : TrackSpec.opus(trackId);
    }

    @Override
    public TrackSpec track() {
        return spec;
    }

    @Override
    public void start(RtpSink sink) {
        slot.sink = sink;
    }

    @Override
    public long lastPacketNanos() {
        return slot.lastPacketNanos;
    }

    @Override
    public void close() {
        slot.sink = null;
    }
}
